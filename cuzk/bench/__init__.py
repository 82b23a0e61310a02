"""Every benchmark `cuzk bench ...` offers: each prints a table and can write JSON. cuzk/cli/bench.py parses
the arguments and calls these; those under "Modules" run as `python -m cuzk.bench.<name>`. Tuning studies
(kernel variants, profiling) are not here: they live in lab/, outside the package.

In process:        kernels (Fr mul, NTT, MSM), synth (synthesis; filecoin_synth: a Filecoin partition's),
                   prove (whole Groth16 proofs), aggregate (SnarkPack against batch verification),
                   latency (circom circuits against snarkjs and rapidsnark; resident_latency: through a
                   daemon that keeps the key), circom_like (the .r1cs/.wtns circuits it proves)
Against a daemon:  daemon_client (single, batch, stress, status, preload), pipeline_compare (batch --compare,
                   --compare-gpus: private daemons side by side); they (and `cuzk demo`) share
                   daemon_connection (--addr, --token, --tls-ca), circuit_inputs (which circuit, its
                   inputs; gen-vanilla), daemon_jobs (submit, await, verify, tabulate), filecoin_params
                   (TEST parameters the daemons load) and run_trace (--trace, `cuzk bench report`)
Traces:            trace_file (read), trace_summary (busy, critical path), report_plots (PNGs)
Shared:            report (timing medians, tables, JSON), errors
Modules:           snarkjs_compare (against snarkjs), cluster_scaling (the Ray cluster on 1, 2, 3... nodes),
                   msm_vs_arkworks (CPU MSM against arkworks)
"""
