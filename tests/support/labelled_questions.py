"""A labelled question file over the sample corpus, for `ragcli eval QUESTIONS.yaml`."""

QUESTIONS = """\
- question: How long do deleted files stay in the trash?
  expect_mode: tos
  expect_evidence: 30 days
- question: What is the minimum password length for local accounts?
  expect_mode: standard
  expect_evidence: ["12"]
- {question: "What is the capital of France?", expect_mode: crag, answerable: false}
"""
