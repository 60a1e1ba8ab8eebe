"""reflect: self-reflection. mode.py is the reflect mode; loop.py the self-reflective
loop it shares with the both mode; steps.py its traced steps; details.py the typed
`reflection_details` block."""
