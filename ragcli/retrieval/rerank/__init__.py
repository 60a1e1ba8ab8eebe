"""The rerank stage: the fused candidates reordered by a reranker before a mode grades or
answers them (docs/retrieval.md, "Reranking").

- base.py: what every reranker is (`Reranker.scores`), and its errors
- factory.py: the reranker `retrieval.rerank.provider` names, built from the settings
- engine.py: a serving engine's /rerank (Infinity, vLLM, llama.cpp, Cohere, Jina, TEI)
- cross_encoder.py: sentence-transformers' CrossEncoder in this process
- llm.py: the answer model judging each candidate's relevance
- stage.py: the stage itself: candidates in, top_k out, each one's rank before and after;
  a reranker that fails is skipped, and the fused order stands

Nothing here is imported until a run reranks: torch and httpx load with the reranker."""
