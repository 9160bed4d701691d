"""Privilege escalation: the catalogue of methods, as data, and the `CAN_ESCALATE` edges it gives."""
