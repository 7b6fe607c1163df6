// Package export writes trajectories as training data: OpenAI's chat fine-tuning JSONL,
// ShareGPT JSONL (LLaMA-Factory's convention), a Parquet file for the HuggingFace hub with its
// dataset card, and SWE-smith's SFT JSONL (its transform_traj_xml).
//
// # Reading
//
// An input is our output directory, a sweep folder (every cell), mini-swe-agent 1.x or 2.x
// output, a folder of SWE-agent .traj files, or one trajectory file; its trajectory files are
// found by results.TrajectoryFiles and read with results' readers (ReadTrajectory in every
// mini-swe-agent layout, ReadSWEAgent). Verdicts are read as compare and report read them
// (compare.Read: the run's eval/, or the harness logs given), only when the export uses them
// (--resolved, the best trajectory, Parquet's columns); flags come from the one scanner
// (audit, through results.AuditRuns); secrets and host paths are removed by internal/redact.
//
// # What is written
//
// What the model saw: the system prompt and the task as sent, every reply with its tool calls,
// every observation as sent (the rendered template, truncated as the run truncated it). Exit
// messages and what follows the last reply (output after which the run stopped) are left out:
// the model never saw them; the final reply, the submission, is the last message. A
// mini-swe-agent 1.x reply that a format error answered stays, marked not trainable, unless
// format errors are dropped; mini-swe-agent 2.x and our loop keep only the error message.
//
// # Memory
//
// Two passes: the first reads each trajectory once, filters it, renders it and appends it to a
// spool file beside the output, keeping a few figures per trajectory; the selection (one
// trajectory per instance, the split by repository) is made on those figures; the second copies
// the chosen ones from the spool into the output files (Parquet in row groups). Memory does not
// grow with the trajectories' size; it grows by about a hundred bytes per trajectory, besides
// what compare holds of a run's verdicts while reading them.
package export
