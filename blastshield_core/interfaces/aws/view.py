"""What the account views (`account`, `verify`) use of the service facade: the store, the read tools,
the audit and the action service. The facade (`interfaces/service.Services`) loads these views, so
they name it by this protocol rather than import it back; mypy holds `Services` to it wherever the
facade passes itself (`Services.undone_on_account`) and the commands pass theirs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ...graph.audit import AuditLog
    from ...graph.store import Store
    from ...read.tools import ReadTools
    from ...respond.act import ActionService

__all__ = ["ServicesView"]


class ServicesView(Protocol):
    """The parts of the services an account view reads and writes through."""

    @property
    def store(self) -> Store: ...  # its settings (the graph's name) and the principal's slice re-synced

    @property
    def tools(self) -> ReadTools: ...  # an alert's response candidates

    @property
    def audit(self) -> AuditLog: ...  # runs, their events, and the release and undone events written

    @property
    def actions(self) -> ActionService: ...  # the routes blocked, and the alerts' path counts before and after
