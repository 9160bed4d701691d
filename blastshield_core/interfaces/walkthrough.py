"""The guided walkthrough: its steps, what the pages showed, and which outcomes were seen.

The dashboard pages record what they rendered (`EvidenceSeen`, `ChokePointsSeen`,
`WhatIfSeen`, `RunSeen`, `BriefingCheckSeen`, `ResetSeen`) into a `SeenLog`;
`SeenLog.outcomes()` decides from those records alone whether each step's outcome
was seen. A button being pressed is never an outcome. The sample briefings are
checked live by the real checker against a fresh investigation, and the demo
reset goes through `reset_demo`, the one place the walkthrough restores the
scenarios.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..brief.briefing import Briefer
from ..brief.checker import Flag, FlagKind
from ..graph.model import ENTITY_ID_PATTERN
from ..graph.seeds import seed
from ..results import (
    MAX_DEPTH,
    ChokePointsResult,
    EvidenceGraphResult,
    RunRecord,
    RunState,
    Status,
    WhatIfResult,
)

if TYPE_CHECKING:
    from .service import Services

__all__ = [
    "CONTAINMENT_ALERT",
    "DEPTH_ALERT",
    "SAMPLE_BRIEFINGS",
    "STEPS",
    "BriefingCheckSeen",
    "ChokePointsSeen",
    "EvidenceSeen",
    "PageQuery",
    "ResetSeen",
    "RunSeen",
    "SampleBriefing",
    "SeenLog",
    "Step",
    "StepOutcome",
    "WhatIfSeen",
    "check_sample_briefings",
    "reset_demo",
]

DEPTH_ALERT = "BH-1042"
CONTAINMENT_ALERT = "BH-CONTAINMENT-4001"
SHALLOW_DEPTH = 4
DEEP_DEPTH = 5
STOPPING_CAP = 1
COMPLETING_CAP = 3

Decider = Literal["rules", "analyst", "gemini"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- query parameters the pages honour ---------------------------------------------------


class PageQuery(_Model):
    """`?alert=`, `?depth=`, `?decider=`, `?cap=` from a page's URL, validated; bad values are dropped."""

    alert: Annotated[str, Field(pattern=ENTITY_ID_PATTERN)] | None = None
    depth: Annotated[int, Field(ge=1, le=MAX_DEPTH)] | None = None
    decider: Decider | None = None
    cap: Annotated[int, Field(ge=1, le=10)] | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, object]) -> PageQuery:
        """Each known parameter that validates on its own; anything else is ignored, never guessed."""
        values: dict[str, object] = {}
        for name in cls.model_fields:
            raw = params.get(name)
            if isinstance(raw, list):
                raw = raw[-1] if raw else None
            if raw is None:
                continue
            try:
                cls(**{name: raw})
            except ValidationError:
                continue
            values[name] = raw
        return cls(**values)

    def as_params(self) -> dict[str, str]:
        return {k: str(v) for k, v in self.model_dump(exclude_none=True).items()}


# -- the steps ---------------------------------------------------------------------------


class Step(_Model):
    """One step: what to look at and why, and where its one button leads (`here` stays on the walkthrough)."""

    id: str
    title: str
    look: str
    button: str
    page: Literal["graph", "containment", "here"]
    query: PageQuery = PageQuery()


STEPS: tuple[Step, ...] = (
    Step(
        id="depth",
        title="“No path” is never “safe”",
        look=(
            f"At depth {SHALLOW_DEPTH} {DEPTH_ALERT} shows no qualifying path; drag the depth slider to "
            f"{DEEP_DEPTH} and a {DEEP_DEPTH}-hop chain to the critical customer-db appears — so an empty answer "
            "only ever means “none within this bound”."
        ),
        button=f"Open the path graph of {DEPTH_ALERT} at depth {SHALLOW_DEPTH}",
        page="graph",
        query=PageQuery(alert=DEPTH_ALERT, depth=SHALLOW_DEPTH),
    ),
    Step(
        id="choke",
        title="Exact choke points and a dry run before acting",
        look=(
            f"Under *Choke points*, see the exact minimum set of relationships that severs every path of "
            f"{CONTAINMENT_ALERT}; under *What if*, pick route-c11-primary to see which path would remain — "
            "nothing is written."
        ),
        button=f"Open the path graph of {CONTAINMENT_ALERT}",
        page="graph",
        query=PageQuery(alert=CONTAINMENT_ALERT, depth=MAX_DEPTH),
    ),
    Step(
        id="cap",
        title="A capped run stops with a path still open",
        look=(
            f"Tick the confirmation and start: with an action cap of {STOPPING_CAP} the rules block one route, "
            "the graph is asked again, the alternate path is still there, and the run says *stopped*, "
            "not contained."
        ),
        button=f"Open containment of {CONTAINMENT_ALERT} with the rules and a cap of {STOPPING_CAP}",
        page="containment",
        query=PageQuery(alert=CONTAINMENT_ALERT, decider="rules", cap=STOPPING_CAP),
    ),
    Step(
        id="briefing",
        title="The checker refuses a model's false claim",
        look=(
            "Two sample model briefings — one says the alert is contained, one names a session that does not "
            "exist — are held against a fresh investigation: each contradiction is flagged, so such a briefing "
            "is never shown as fact."
        ),
        button="Check the two sample briefings now",
        page="here",
    ),
    Step(
        id="complete",
        title="Only a fresh “no path” completes a run",
        look=(
            "Tick the confirmation and start again: the rules block the remaining route, a fresh query finds "
            "no qualifying path, and only that answer lets the run say *completed*."
        ),
        button=f"Open containment of {CONTAINMENT_ALERT} with the rules and a cap of {COMPLETING_CAP}",
        page="containment",
        query=PageQuery(alert=CONTAINMENT_ALERT, decider="rules", cap=COMPLETING_CAP),
    ),
    Step(
        id="reset",
        title="Reset the demo",
        look=(
            "Restore the built-in scenarios (every route unblocked; imported data is left alone) so the next "
            "visitor starts from the same graph."
        ),
        button="Reset the demo scenarios",
        page="here",
    ),
)


# -- what the pages saw --------------------------------------------------------------------


class EvidenceSeen(_Model):
    """The path graph drew an alert's evidence at a depth."""

    kind: Literal["evidence"] = "evidence"
    alert_id: str
    depth: int
    status: Status
    path_count: int
    hops: tuple[int, ...] = ()
    assets: tuple[str, ...] = ()

    @classmethod
    def from_result(cls, result: EvidenceGraphResult) -> EvidenceSeen:
        return cls(
            alert_id=result.alert_id or "",
            depth=result.depth or 0,
            status=result.status,
            path_count=result.path_count,
            hops=tuple(p.hops for p in result.paths),
            assets=tuple(sorted({p.nodes[-1].id for p in result.paths if p.nodes})),
        )


class ChokePointsSeen(_Model):
    """The path graph listed an alert's choke points."""

    kind: Literal["choke_points"] = "choke_points"
    alert_id: str
    status: Status
    routes_only: bool
    severable: bool
    qualifying_paths: int
    relationships: tuple[str, ...] = ()
    route_ids: tuple[str, ...] = ()

    @classmethod
    def from_result(cls, result: ChokePointsResult) -> ChokePointsSeen:
        return cls(
            alert_id=result.alert_id or "",
            status=result.status,
            routes_only=result.routes_only,
            severable=result.severable,
            qualifying_paths=result.qualifying_paths,
            relationships=tuple(f"{r.source} -{r.type}-> {r.target}" for r in result.relationships),
            route_ids=tuple(sorted(r.route_id for r in result.relationships if r.route_id)),
        )


class WhatIfSeen(_Model):
    """The path graph showed a what-if dry run."""

    kind: Literal["what_if"] = "what_if"
    alert_id: str
    status: Status
    blocked: tuple[str, ...]
    paths_before: int
    path_count: int

    @classmethod
    def from_result(cls, result: WhatIfResult) -> WhatIfSeen:
        return cls(
            alert_id=result.alert_id or "",
            status=result.status,
            blocked=tuple(result.blocked),
            paths_before=result.paths_before,
            path_count=result.path_count,
        )


class RunSeen(_Model):
    """The containment page showed a run's verdict."""

    kind: Literal["run"] = "run"
    run_id: str
    alert_id: str
    decider: str
    cap: int
    state: RunState
    remaining_paths: int | None
    verified_routes: tuple[str, ...] = ()

    @classmethod
    def from_run(cls, run: RunRecord) -> RunSeen:
        return cls(
            run_id=run.run_id,
            alert_id=run.alert_id,
            decider=run.decider,
            cap=run.max_actions,
            state=run.state,
            remaining_paths=run.remaining_paths,
            verified_routes=tuple(a.route_id for a in run.actions if a.verified),
        )


class SampleBriefing(_Model):
    """A briefing a model might write, with the flag it must earn."""

    id: str
    title: str
    text: str
    expected: FlagKind


SAMPLE_BRIEFINGS: tuple[SampleBriefing, ...] = (
    SampleBriefing(
        id="false-containment",
        title="claims containment",
        text=(
            f"Model briefing for {CONTAINMENT_ALERT}: the rules playbook blocked route-c11-primary, so "
            "contractor_11 is now fully contained and no qualifying path remains to payments-vault."
        ),
        expected=FlagKind.FALSE_CONTAINMENT,
    ),
    SampleBriefing(
        id="invented-entity",
        title="invents an entity",
        text=(
            f"Model briefing for {CONTAINMENT_ALERT}: contractor_11 reaches payments-vault through sess-c11-sso "
            "and admin-console, and also through a third session, sess-c11-backup."
        ),
        expected=FlagKind.UNKNOWN_ENTITY,
    ),
)


class BriefingCheckSeen(_Model):
    """The walkthrough showed the checker's flags for a sample briefing."""

    kind: Literal["briefing_check"] = "briefing_check"
    sample_id: str
    alert_id: str
    evidence_status: Status
    evidence_paths: int
    flags: tuple[Flag, ...] = ()

    @property
    def flag_kinds(self) -> tuple[str, ...]:
        return tuple(sorted({f.kind.value for f in self.flags}))


class ResetSeen(_Model):
    """The demo was reset: the scenarios restored and each alert's qualifying paths read back."""

    kind: Literal["reset"] = "reset"
    loaded: tuple[str, ...]
    path_counts: tuple[tuple[str, int | None], ...]


Seen = Annotated[
    EvidenceSeen | ChokePointsSeen | WhatIfSeen | RunSeen | BriefingCheckSeen | ResetSeen,
    Field(discriminator="kind"),
]


class StepOutcome(_Model):
    step_id: str
    done: bool
    detail: str = Field(description="what was seen so far, or what is still to do")


def _paths(n: int) -> str:
    return f"{n} qualifying path" + ("" if n == 1 else "s")


class SeenLog(BaseModel):
    """What the pages rendered in one dashboard session, in order, without repeats."""

    items: list[Seen] = Field(default_factory=list)

    def record(self, item: Seen) -> bool:
        """Add what a page rendered; False when exactly this was already recorded."""
        if item in self.items:
            return False
        self.items.append(item)
        return True

    def of(self, kind: type) -> list:
        return [i for i in self.items if isinstance(i, kind)]

    def latest_checks(self) -> dict[str, BriefingCheckSeen]:
        """The latest check of each sample briefing, by sample id."""
        return {c.sample_id: c for c in self.of(BriefingCheckSeen)}

    def outcomes(self) -> list[StepOutcome]:
        """Each step's outcome, decided from the records alone."""
        decide = {
            "depth": self._depth,
            "choke": self._choke,
            "cap": self._cap,
            "briefing": self._briefing,
            "complete": self._complete,
            "reset": self._reset,
        }
        return [decide[step.id]() for step in STEPS]

    def _depth(self) -> StepOutcome:
        seen = [e for e in self.of(EvidenceSeen) if e.alert_id == DEPTH_ALERT]
        shallow = next((e for e in seen if e.depth == SHALLOW_DEPTH and e.status is Status.NO_PATH), None)
        deep = next((e for e in seen if e.depth == DEEP_DEPTH and e.status is Status.PATHS_FOUND), None)
        parts = []
        if shallow:
            parts.append(f"depth {SHALLOW_DEPTH}: no qualifying path")
        if deep:
            hops = ", ".join(str(h) for h in deep.hops)
            parts.append(f"depth {DEEP_DEPTH}: {_paths(deep.path_count)} ({hops} hops) to {', '.join(deep.assets)}")
        if not shallow:
            parts.append(f"still to see: no path at depth {SHALLOW_DEPTH}")
        if not deep:
            parts.append(f"still to see: the path at depth {DEEP_DEPTH}")
        return StepOutcome(step_id="depth", done=bool(shallow and deep), detail=" · ".join(parts))

    def _choke(self) -> StepOutcome:
        chokes = next(
            (
                c
                for c in reversed(self.of(ChokePointsSeen))
                if c.alert_id == CONTAINMENT_ALERT and c.status is Status.PATHS_FOUND
            ),
            None,
        )
        trial = next(
            (
                w
                for w in reversed(self.of(WhatIfSeen))
                if w.alert_id == CONTAINMENT_ALERT and w.status in (Status.PATHS_FOUND, Status.NO_PATH)
            ),
            None,
        )
        parts = []
        if chokes:
            severs = "severs" if chokes.severable else "cannot sever"
            parts.append(
                f"minimum set of {len(chokes.relationships)} relationship(s) {severs} all "
                f"{_paths(chokes.qualifying_paths)}" + (f" ({', '.join(chokes.route_ids)})" if chokes.route_ids else "")
            )
        else:
            parts.append("still to see: the choke points")
        if trial:
            parts.append(
                f"what-if blocking {', '.join(trial.blocked)}: {trial.path_count} of {trial.paths_before} "
                "would remain (nothing written)"
            )
        else:
            parts.append("still to do: a what-if dry run")
        return StepOutcome(step_id="choke", done=bool(chokes and trial), detail=" · ".join(parts))

    def _stopped(self) -> RunSeen | None:
        return next(
            (
                r
                for r in self.of(RunSeen)
                if r.alert_id == CONTAINMENT_ALERT
                and r.cap == STOPPING_CAP
                and r.state is RunState.STOPPED
                and (r.remaining_paths or 0) > 0
            ),
            None,
        )

    def _cap(self) -> StepOutcome:
        run = self._stopped()
        if run is None:
            return StepOutcome(step_id="cap", done=False, detail=f"still to see: a cap-{STOPPING_CAP} run stop")
        return StepOutcome(
            step_id="cap",
            done=True,
            detail=(
                f"run {run.run_id} stopped after blocking {', '.join(run.verified_routes) or 'nothing'}: "
                f"{_paths(run.remaining_paths or 0)} still open"
            ),
        )

    def _briefing(self) -> StepOutcome:
        latest = self.latest_checks()
        parts, done = [], True
        for sample in SAMPLE_BRIEFINGS:
            check = latest.get(sample.id)
            if check is None:
                parts.append(f"still to check: the briefing that {sample.title}")
                done = False
            elif sample.expected.value in check.flag_kinds:
                parts.append(f"{sample.title}: flagged {', '.join(check.flag_kinds)}")
            else:
                kinds = ", ".join(check.flag_kinds) or "nothing"
                parts.append(
                    f"{sample.title}: flagged {kinds} — the claim matches the graph now "
                    f"({_paths(check.evidence_paths)}); reset the demo to see it refused"
                )
                done = False
        return StepOutcome(step_id="briefing", done=done, detail=" · ".join(parts))

    def _complete(self) -> StepOutcome:
        stopped = self._stopped()
        if stopped is None:
            return StepOutcome(
                step_id="complete", done=False, detail=f"still to see: first the cap-{STOPPING_CAP} run stop"
            )
        runs = self.of(RunSeen)
        later = next(
            (
                r
                for r in runs[runs.index(stopped) + 1 :]
                if r.alert_id == CONTAINMENT_ALERT and r.state is RunState.COMPLETED and r.remaining_paths == 0
            ),
            None,
        )
        if later is None:
            return StepOutcome(step_id="complete", done=False, detail="still to see: a later run complete")
        return StepOutcome(
            step_id="complete",
            done=True,
            detail=(
                f"run {later.run_id} completed after blocking {', '.join(later.verified_routes) or 'nothing'}: "
                "a fresh query found no qualifying path"
            ),
        )

    def _reset(self) -> StepOutcome:
        resets = self.of(ResetSeen)
        if not resets:
            return StepOutcome(step_id="reset", done=False, detail="still to do: reset the demo")
        counts = ", ".join(f"{a} {n}" for a, n in resets[-1].path_counts)
        return StepOutcome(step_id="reset", done=True, detail=f"scenarios restored; qualifying paths now: {counts}")


# -- actions the walkthrough takes itself ---------------------------------------------------


def check_sample_briefings(briefer: Briefer, alert_id: str = CONTAINMENT_ALERT) -> list[BriefingCheckSeen]:
    """Every sample briefing held against one fresh investigation. Raises EvidenceUnavailable."""
    evidence = briefer.evidence(alert_id)
    return [
        BriefingCheckSeen(
            sample_id=sample.id,
            alert_id=alert_id,
            evidence_status=evidence.status,
            evidence_paths=evidence.path_count,
            flags=tuple(briefer.check(alert_id, sample.text, evidence)),
        )
        for sample in SAMPLE_BRIEFINGS
    ]


def reset_demo(services: Services, *, actor: str | None = None) -> ResetSeen:
    """Restore the built-in scenarios (the audited reset, recorded with `actor`) and read the alerts back.

    Raises QueryFailed."""
    report = seed(services.store, reset=True, actor=actor)
    alerts = services.tools.list_alerts()
    return ResetSeen(
        loaded=tuple(report.loaded),
        path_counts=tuple((a.id, a.path_count) for a in sorted(alerts.alerts, key=lambda a: a.id)),
    )
