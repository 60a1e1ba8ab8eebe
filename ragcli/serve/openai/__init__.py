"""`ragcli serve --openai`: the store as OpenAI-compatible chat models (app.py), the API's
request, error object and model ids (protocol.py), a request's messages read as a
question and its conversation (conversation.py), a run's result as the reply a client
shows (reply.py) and its usage (usage.py)."""
