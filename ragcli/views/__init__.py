"""The view layer: one module per command or mode, each turning data into a Rich renderable.

Views are pure (data in, renderable out, no I/O) and import nothing from the pipeline but the
typed result and details models and the trace records. format.py holds the one set of
formatters and styles; layout.py the tables that fit the width they are drawn at. Import the
view you need from its module (`from ragcli.views.ask import ask_view`): this package loads
nothing on its own, so a command pays only for the views it shows."""
