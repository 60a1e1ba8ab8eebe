"""`ragcli chat`: an interactive conversation over the store (session.py: the loop;
commands.py: the slash commands)."""
