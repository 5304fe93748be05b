// The HTTP transport of the engine.
