"""The background jobs and what they share.

- `runner`: runs a job under its lease, keeps run records, schedules the three on APScheduler;
- `extraction/`: chat log -> durable facts (windows, prompt, parsing, decisions, the pipeline);
- `consolidation`: the nightly pass (conflicts, merges, stale memories, digest, daily log);
- `retention`: what expires and what is purged, and when;
- `registry`: the jobs' own records (cursors, windows, leases, runs);
- `writes`: the record changes jobs make through the service's write path.
"""
