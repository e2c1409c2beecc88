"""Agent-host hooks: thin translations of host payloads into the gate's decisions."""
