"""`tessera tune` (issue 40): the value of a rule's parameter that meets a balance target, among the
values the verifier proves sound.  `search.py` races the candidates on common seats and seeds,
`verifycmd.py` is `tessera verify --param`, `command.py` the command line."""
