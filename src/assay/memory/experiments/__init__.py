"""Write-side experiments: live A/B arms for memory-writing instructions, with an anytime-valid promotion gate.

Each unit (a prompt by default, or a session) is assigned arm A (control: the current rules) or
B (control + one candidate instruction). Memories the unit writes are stamped with the arm's
version (``source_ref``) and ``(experiment, round, arm, unit)`` on their row; later deliveries
of those memories — their engagement and grades — compare the arms; the gate promotes B into A
when an anytime-valid confidence sequence says B is better, and the next queued candidate
becomes B. State lives in the store (SQLite or PostgreSQL), never in a config file.

The Python API (what the memory server and agent hooks call)::

    from assay.memory.experiments import ExperimentStore, write_memories

    ab = ExperimentStore(db_url)                        # one per thread; configs cached for a few s
    ab.start("writer", control_version="gen-7", control_rules=rules,
             candidate_version="gen-7+b3", instruction="Record the user's units.")
    arm = ab.assign("writer", prompt_id)                # Arm(name "A"|"B", version, instruction, rules, …)
    arm = ab.assign("writer", subagent_prompt_id, exclude=True)   # control's rules, stamped "excluded"
    # the agent writes with arm.rules (+ arm.instruction when B), then:
    write_memories(memory_store, new_memories, arm, source_ref=writer_ref)  # stamped, one transaction
    ab.status("writer").to_dict()                       # per-arm figures, B − A with CIs and the CS
    ab.promote("writer", dry_run=True)                  # the gate's Decision with its figures
    ab.tick()                                           # cron: promote every experiment whose gate says yes
    ab.queue("writer", version="gen-8+b1", instruction="…"); ab.stop("writer")

- :func:`assign` (pure) / :meth:`ExperimentStore.assign` (cached config): SHA-256 of experiment,
  round, seed and unit id — sticky, reproducible, no database write (:mod:`.assign`).
  No running experiment, an unknown name, or ``ASSAY_AB_ENABLED=0``: control, unstamped.
- :func:`stamp` / :func:`write_memories`: inside an experiment the arm's version wins as
  ``source_ref`` and the writer's own is kept in ``meta["writer_source_ref"]`` (:mod:`.stamping`).
- :class:`ExperimentStore`: start, queue, stop, status, promote, tick, events (:mod:`.store`).
- :func:`experiment_status` (:mod:`.status`), :func:`decide` (:mod:`.gate`), the gate's
  :class:`GateParams` and the process :class:`ExperimentSettings` (:mod:`.config`), the
  validity simulator (:mod:`.simulate`).

Two labels called "arm": a memory's ``ab_arm`` (this room: which writing rules produced it) and
the delivery log's ``arm`` column (the retrieval side: which ranker served the search). They are
independent and never mixed.
"""

from assay.memory.experiments.assign import EXCLUDED, Arm, ExperimentConfig, assign, unit_draw
from assay.memory.experiments.config import ExperimentSettings, GateParams
from assay.memory.experiments.gate import Decision, GuardCheck, decide
from assay.memory.experiments.stamping import WRITER_SOURCE_REF, stamp, write_memories
from assay.memory.experiments.status import ArmStats, DiffStats, ExperimentStatus, MetricStats, experiment_status
from assay.memory.experiments.store import Event, ExperimentError, ExperimentStore

__all__ = [
    "Arm",
    "ArmStats",
    "Decision",
    "DiffStats",
    "EXCLUDED",
    "Event",
    "ExperimentConfig",
    "ExperimentError",
    "ExperimentSettings",
    "ExperimentStatus",
    "ExperimentStore",
    "GateParams",
    "GuardCheck",
    "MetricStats",
    "WRITER_SOURCE_REF",
    "assign",
    "decide",
    "experiment_status",
    "stamp",
    "unit_draw",
    "write_memories",
]
