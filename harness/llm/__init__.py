"""LLM seats: providers, the one retry/limit/timeout wrapper, prompts and the seat itself."""
