"""crag: corrective retrieval. mode.py is the crag mode; retrieval.py the corrective
retrieval it shares with the both mode; grading.py its pure decisions; steps.py its traced
steps; drafting.py the answer drafted while web results are graded; details.py the typed
`crag_details` block."""
