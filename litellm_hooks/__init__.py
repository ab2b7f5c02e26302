"""Amber's LiteLLM proxy hook. The callback to name in config.yaml is `litellm_hooks.amber.amber_memory`;
importing this package alone loads nothing from LiteLLM."""
