package analyze

import "fmt"

// sections builds the page's sections with their absence messages.
func sections(a *Analysis, o *Options, c columns, skipped int64, replayWhy string) []Section {
	noStart := ""
	if c.start == 0 {
		noStart = "no job has a recorded start (an SWF trace whose waits are -1, or a trace of pending jobs only)"
	}
	vol := Section{ID: "volume", Title: "Volume"}
	if c.partition == 0 {
		vol.Notes = append(vol.Notes, "By partition: absent, no job has a partition (the input had no Partition column, as SWF).")
	}
	if c.account == 0 {
		vol.Notes = append(vol.Notes, "Accounts: absent, no job has an account.")
	}
	if c.user == 0 {
		vol.Notes = append(vol.Notes, "Users: absent, no job has a user name or UID.")
	}
	util := Section{ID: "utilisation", Title: "Utilisation", Absent: noStart}
	switch {
	case o.nodesFromHeader:
		util.Notes = append(util.Notes, fmt.Sprintf("Capacity: %d nodes, from the trace's header (MaxNodes).", o.Nodes))
	case o.Nodes > 0:
		util.Notes = append(util.Notes, fmt.Sprintf("Capacity: %d nodes, as given.", o.Nodes))
	default:
		util.Notes = append(util.Notes, fmt.Sprintf("Capacity: inferred (the trace has no node count): each UTC day's capacity is the most nodes busy at once within %d days either side, so utilisation is an upper bound where the cluster was never full.", o.CapacitySmoothDays))
	}
	if c.startUnknown > 0 {
		util.Notes = append(util.Notes, fmt.Sprintf("%d jobs ran from an unrecorded start (SWF wait -1) and are not in the busy nodes.", c.startUnknown))
	}
	if skipped > 0 {
		util.Notes = append(util.Notes, fmt.Sprintf("%d jobs fall outside the timeline (before the first submission) and are left out.", skipped))
	}
	queue := Section{ID: "queue", Title: "Queue", Absent: noStart}
	if c.limit == 0 && noStart == "" {
		queue.Notes = append(queue.Notes, "No job has a time limit: pending node-hours use the run time instead.")
	}
	waits := Section{ID: "waits", Title: "Waits", Absent: noStart}
	if c.partition == 0 {
		waits.Notes = append(waits.Notes, "By partition: absent, no job has a partition.")
	}
	if c.qos == 0 {
		waits.Notes = append(waits.Notes, "By QOS: absent, no job has a QOS (the input had no QOS column, as SWF).")
	}
	rl := Section{ID: "runtime_limit", Title: "Run time vs limit"}
	if c.limit == 0 {
		rl.Absent = "no job has a time limit (the input had no Timelimit column, or every limit was UNLIMITED)"
	}
	ch := Section{ID: "chains", Title: "Service chains"}
	switch {
	case c.user == 0:
		ch.Absent = "no job has a user, and chains are the jobs of one user"
	case c.limit == 0 && c.timeout == 0:
		ch.Absent = "no job has a time limit or a TIMEOUT state, so nothing says a job ran to its limit"
	case noStart != "":
		ch.Absent = noStart
	}
	if c.name == 0 && ch.Absent == "" {
		if c.account == 0 {
			ch.Notes = append(ch.Notes, "No job has a name or an account: chains are matched by user and shape (node count and limit) only.")
		} else {
			ch.Notes = append(ch.Notes, "No job has a name: chains are matched by account and shape only.")
		}
	}
	if replayWhy != "" && ch.Absent == "" {
		ch.Notes = append(ch.Notes, "Reactive and oracle replays: absent, "+replayWhy+".")
	} else if ch.Absent == "" && a.ChainSummary.ReplayedLinks < a.ChainSummary.Links {
		ch.Notes = append(ch.Notes, fmt.Sprintf("Reactive and oracle replays cover %d of %d links (the first %d chains by head submission, at most %d links; a successor wider than the simulated cluster ends a chain's replay).",
			a.ChainSummary.ReplayedLinks, a.ChainSummary.Links, o.Replay.MaxChains, o.Replay.MaxLinks))
	}
	fid := Section{ID: "fidelity", Title: "Simulator fidelity", Absent: replayWhy}
	return []Section{vol, util, queue, waits, rl, ch, fid}
}
