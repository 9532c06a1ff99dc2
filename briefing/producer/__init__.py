"""The producer's desk."""
