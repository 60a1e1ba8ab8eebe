"""Retrieval evaluation: BEIR-format datasets and ranking metrics."""
