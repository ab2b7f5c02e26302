"""Extraction: raw messages -> durable memories, one window of the log at a time.

windows (pure) -> prompt -> the model -> parse (pure, strict) -> decide (pure) -> pipeline (writes)."""
