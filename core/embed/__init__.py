"""Embedders: the offline local default and any model LiteLLM can reach."""
