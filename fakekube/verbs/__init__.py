"""The store's verbs, one family per module, mixed into ``fakekube.store.Store`` (as fakeredis groups
commands by family). Each mixin relies on the plumbing ``Store`` defines (``_run``, ``_commit``,
``_lookup`` ...)."""
