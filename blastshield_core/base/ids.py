"""The entity id pattern: every part names graph entities, alerts and run targets by it."""

__all__ = ["ENTITY_ID_PATTERN"]

ENTITY_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$"
