"""agentic: decompose, answer the parts, synthesize. mode.py is the agentic mode;
steps.py its traced steps; details.py the typed `agentic_details` block."""
