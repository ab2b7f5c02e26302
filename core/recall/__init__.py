"""Recall: hybrid dense + BM25 retrieval, fusion, boosts, budget and rendering."""
