"""Framework-free structured-output engine: providers, failover, the parse pipeline, extractors."""
