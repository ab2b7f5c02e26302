"""Chroma access. The only package in Amber that imports chromadb."""

from .chroma import ChromaStore

__all__ = ["ChromaStore"]
