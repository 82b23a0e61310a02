"""Every benchmark: each prints a table and can write JSON. `cuzk bench ...` (cuzk/cli/bench.py) parses
the arguments and calls these; those under "Modules" run as `python -m cuzk.bench.<name>`.

In process:        kernels (Fr mul, NTT, MSM), synth (synthesis), prove (whole Groth16 proofs)
Against a daemon:  daemon_client (single, batch, stress, status, preload), pipeline_compare (batch --compare,
                   --compare-gpus: private daemons side by side), demo (`cuzk demo`); they share
                   daemon_connection (--addr, --token, --tls-ca), circuit_inputs (which circuit, its
                   inputs; gen-vanilla), daemon_jobs (submit, await, verify, tabulate) and run_trace
                   (--trace, `cuzk bench report`)
Traces:            trace_file (read), trace_summary (busy, critical path), report_plots (PNGs)
Shared:            report (timing medians, tables, JSON), errors
Modules:           snarkjs_compare (against snarkjs), cluster_scaling (the Ray cluster on 1, 2, 3... nodes),
                   msm_vs_arkworks (CPU MSM against arkworks), msm_variants (GPU MSM stages, device only)
"""
