"""The offline backend's answer in stages, one module each (ragcli/llm/extractive.py runs
them): candidates (the units of the retrieved chunks that may answer), evidence (their
embedding and lexical evidence, calibrated), scoring (each candidate's answer features and
score), selection (which are quoted, within the budget) and rendering (the typed Answer).
code_blocks and brought say what a code block shows and what a lead-in brings."""
