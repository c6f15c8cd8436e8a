"""Drop-in shims for users migrating from other RAG evaluators."""
