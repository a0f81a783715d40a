"""``chrf-audit versions``: a package's releases audited one by one, each in its own cached
environment, on Dask distributed; the family x release matrix, each family's introduction and
fix, and the root-cause diff between the releases around it (docs/versions.md).

``targets`` (what is audited), ``releases`` (SPEC against the index), ``index`` (pip / uv and
their configuration), ``envs`` (the cached environments and interpreters), ``server`` (the
protocol server a release's environment runs), ``unit`` (one release: install, audit),
``engine`` (Dask), ``bisect`` (``--bisect``'s rounds), ``matrix`` (the document), ``runner``
(all of it).
"""
