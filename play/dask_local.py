"""The Dask cluster `simulate --backend dask` starts on this machine when no `--scheduler` is given:
one that only its user can reach (issue 38).

distributed's `LocalCluster` listens on 127.0.0.1 with no authentication: any local user could
connect and run code as the user running simulate.  So the cluster here:

- speaks TLS with certificates made for this run (`Security.temporary()`, mutual: every peer,
  client or worker, must hold the run's own certificate, which exists only in this process and
  the workers it spawns), so a connection from another user fails its handshake;
- serves no HTTP at all: `dashboard_address=None` still leaves each scheduler and worker an HTTP
  server (the scheduler's on 127.0.0.1:8787, its routes showing workers' logs and call stacks),
  so the scheduler and workers used here never start one.

The certificates need the `cryptography` package (the `cluster` extra).  For a cluster of
several machines, start one yourself and pass `--scheduler` (docs/simulate.md).
"""
from __future__ import annotations

from distributed import Nanny, Scheduler, SpecCluster, Worker


class _NoHTTP:
    """A distributed server that starts no HTTP server: no dashboard, no HTTP routes, no port."""

    def start_http_server(self, routes, dashboard_address, default_port=0, ssl_options=None):
        from distributed.http.routing import RoutingApplication
        from tornado.httpserver import HTTPServer

        self.http_application = RoutingApplication([])
        self.http_server = HTTPServer(self.http_application)  # made (others stop it), never listening


class QuietScheduler(_NoHTTP, Scheduler):
    pass


class QuietWorker(_NoHTTP, Worker):
    pass


def private_cluster(workers: int) -> tuple[SpecCluster, object]:
    """A cluster of `workers` single-threaded worker processes on 127.0.0.1 that only this run
    can reach, and the `Security` a client needs to join it."""
    try:
        from distributed.security import Security

        security = Security.temporary()
    except ImportError as exc:
        raise RuntimeError("--backend dask without --scheduler starts a cluster that only you can reach, with "
                           "certificates made by the `cryptography` package: pip install 'tessera[cluster]' "
                           "(or give --scheduler)") from exc
    common = {"host": "127.0.0.1", "protocol": "tls://", "security": security, "dashboard": False,
              "dashboard_address": None}
    scheduler = {"cls": QuietScheduler, "options": dict(common)}
    worker = {"cls": Nanny, "options": {**common, "nthreads": 1, "worker_class": QuietWorker,
                                        "silence_logs": 40}}
    cluster = SpecCluster(scheduler=scheduler, workers={i: worker for i in range(workers)}, security=security,
                          silence_logs=40, name="tessera")
    return cluster, security
