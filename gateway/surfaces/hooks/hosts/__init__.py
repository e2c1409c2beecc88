"""One module per agent host, each registering itself (`gateway.surfaces.hooks.registry`)."""
