package ingest

import (
	"fmt"
	"sort"
	"strings"
)

// ColumnMap renames the columns of a CSV (or sacct) header to the column
// names ingest reads, so that exports with other names (job_id, user,
// submit_time, ...) can be read. A header column the map does not name
// keeps its own name; one whose name is neither a known column nor
// mapped is ignored, as in sacct. The zero value maps nothing.
type ColumnMap struct {
	name  string         // the built-in map's name; "" for a custom map
	pairs []ColumnPair   // in the order given
	from  map[string]col // lower-case source name: column
}

// ColumnPair maps the header column From (matched ignoring case) to the
// column To: a sacct column name (JobID, User, Submit, Start, End,
// Timelimit, TimelimitRaw, ElapsedRaw, NNodes, ReqNodes, NCPUS, ReqCPUS,
// State, ...; see ColumnTargets) or one of the extra targets only a map
// can name: TimelimitSec (the limit in seconds) and NGPUs (a GPU count).
type ColumnPair struct{ From, To string }

// builtinMap is a column map of a public release.
type builtinMap struct {
	name, about string
	pairs       []ColumnPair
}

// builtinMaps are the maps --columns NAME selects. Each names the
// release's columns; the columns of a release that Mirage does not read
// (work_dir, submit_line, ...) are ignored.
var builtinMaps = []builtinMap{
	{name: "eagle", about: "NREL Eagle jobs (OEDI submission 5860, sample_eagle_data.csv): local times YYYY-MM-DD HH:MM:SS, wallclock_req and run_time in seconds; mem_req (unit not documented) is not read",
		pairs: []ColumnPair{
			{"job_id", "JobID"}, {"user", "User"}, {"account", "Account"}, {"partition", "Partition"},
			{"qos", "QOS"}, {"wallclock_req", "TimelimitSec"}, {"nodes_req", "ReqNodes"},
			{"processors_req", "ReqCPUS"}, {"gpus_req", "NGPUs"}, {"submit_time", "Submit"},
			{"start_time", "Start"}, {"end_time", "End"}, {"run_time", "ElapsedRaw"},
			{"state", "State"}, {"name", "JobName"},
		}},
	{name: "pm100", about: "CINECA Marconi100 PM100 job table (francescoantici/PM100-data, job_features.md) exported to CSV: time_limit in minutes, run_time in seconds, allocated counts before requested ones",
		pairs: []ColumnPair{
			{"job_id", "JobID"}, {"user_id", "UID"}, {"group_id", "GID"}, {"partition", "Partition"},
			{"qos", "QOS"}, {"job_state", "State"}, {"state_reason", "Reason"}, {"priority", "Priority"},
			{"submit_time", "Submit"}, {"eligible_time", "Eligible"}, {"start_time", "Start"},
			{"end_time", "End"}, {"time_limit", "TimelimitRaw"}, {"run_time", "ElapsedRaw"},
			{"num_nodes_alloc", "AllocNodes"}, {"num_nodes_req", "ReqNodes"},
			{"num_cores_alloc", "AllocCPUS"}, {"num_cores_req", "ReqCPUS"}, {"num_gpus_alloc", "NGPUs"},
		}},
}

// BuiltinColumnMaps returns the names of the built-in maps and what each
// reads, sorted by name.
func BuiltinColumnMaps() [][2]string {
	var out [][2]string
	for _, m := range builtinMaps {
		out = append(out, [2]string{m.name, m.about})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// mapTargets are the targets only a ColumnMap can name.
var mapTargets = map[string]col{"timelimitsec": colTimelimitSec, "ngpus": colNGPUs}

// ParseColumnMap parses --columns: the name of a built-in map (eagle,
// pm100), or comma-separated FROM=TO pairs (job_id=JobID,user=User), TO a
// column ingest reads. "" is the zero map. An unknown target, a source
// named twice or two sources mapped to one target wrap ErrBadOption.
func ParseColumnMap(spec string) (ColumnMap, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return ColumnMap{}, nil
	}
	for _, b := range builtinMaps {
		if strings.EqualFold(spec, b.name) {
			m, err := newColumnMap(b.pairs)
			m.name = b.name
			return m, err
		}
	}
	if !strings.Contains(spec, "=") {
		return ColumnMap{}, fmt.Errorf("%w: --columns %q: not a built-in map (%s) nor FROM=TO pairs (job_id=JobID,user=User,...)", ErrBadOption, spec, builtinNames())
	}
	var pairs []ColumnPair
	for _, p := range strings.Split(spec, ",") {
		from, to, ok := strings.Cut(p, "=")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		if !ok || from == "" || to == "" {
			return ColumnMap{}, fmt.Errorf("%w: --columns: %q is not FROM=TO", ErrBadOption, p)
		}
		pairs = append(pairs, ColumnPair{from, to})
	}
	return newColumnMap(pairs)
}

func builtinNames() string {
	var names []string
	for _, b := range builtinMaps {
		names = append(names, b.name)
	}
	return strings.Join(names, ", ")
}

func newColumnMap(pairs []ColumnPair) (ColumnMap, error) {
	m := ColumnMap{pairs: pairs, from: map[string]col{}}
	to := map[col]string{}
	for _, p := range pairs {
		c, ok := targetCol(p.To)
		if !ok {
			return ColumnMap{}, fmt.Errorf("%w: --columns %s=%s: %q is not a column ingest reads (%s)", ErrBadOption, p.From, p.To, p.To, strings.Join(ColumnTargets(), ", "))
		}
		k := strings.ToLower(p.From)
		if _, dup := m.from[k]; dup {
			return ColumnMap{}, fmt.Errorf("%w: --columns names the source column %q twice", ErrBadOption, p.From)
		}
		if prev, dup := to[c]; dup {
			return ColumnMap{}, fmt.Errorf("%w: --columns maps both %q and %q to %s", ErrBadOption, prev, p.From, p.To)
		}
		m.from[k], to[c] = c, p.From
	}
	return m, nil
}

// targetCol returns the column a map target names, ignoring case.
func targetCol(name string) (col, bool) {
	k := strings.ToLower(name)
	if c, ok := colByName[k]; ok {
		return c, true
	}
	c, ok := mapTargets[k]
	return c, ok
}

// ColumnTargets returns the column names a ColumnMap may map to, sorted.
func ColumnTargets() []string {
	names := []string{"TimelimitSec", "NGPUs"}
	for _, n := range sacctColumnNames {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// sacctColumnNames are the sacct columns ingest reads, as sacct spells them.
var sacctColumnNames = []string{"JobID", "JobIDRaw", "JobName", "Cluster", "Partition", "Account", "User", "UID",
	"Group", "GID", "QOS", "State", "ExitCode", "Reason", "Submit", "Eligible", "Start", "End", "Elapsed",
	"ElapsedRaw", "Timelimit", "TimelimitRaw", "NNodes", "AllocNodes", "ReqNodes", "NCPUS", "AllocCPUS",
	"ReqCPUS", "ReqTRES", "AllocTRES", "ReqMem", "Priority"}

// IsZero reports whether m maps nothing.
func (m ColumnMap) IsZero() bool { return len(m.pairs) == 0 }

// Builtin returns the built-in map's name, "" for a custom or zero map.
func (m ColumnMap) Builtin() string { return m.name }

// String returns the map as ParseColumnMap reads it: the built-in name,
// or the FROM=TO pairs in the order given; "" for the zero map.
func (m ColumnMap) String() string {
	if m.name != "" {
		return m.name
	}
	var parts []string
	for _, p := range m.pairs {
		parts = append(parts, p.From+"="+p.To)
	}
	return strings.Join(parts, ",")
}

// lookup returns the column a header name maps to.
func (m *ColumnMap) lookup(name string) (col, bool) {
	if m == nil || m.from == nil {
		return 0, false
	}
	c, ok := m.from[strings.ToLower(name)]
	return c, ok
}

// missing returns the sources of a custom map that header does not
// name (a built-in map's columns may be absent: exports differ).
func (m *ColumnMap) missing(header [][]byte) []string {
	if m == nil || m.name != "" {
		return nil
	}
	have := map[string]bool{}
	for _, h := range header {
		have[strings.ToLower(strings.TrimSpace(string(h)))] = true
	}
	var out []string
	for _, p := range m.pairs {
		if !have[strings.ToLower(p.From)] {
			out = append(out, p.From)
		}
	}
	return out
}

// matchBuiltin returns the built-in map most of whose source columns
// (four in five or more) header names, "" when none: for the hint of an
// unknown CSV.
func matchBuiltin(header [][]byte) string {
	have := map[string]bool{}
	for _, h := range header {
		have[strings.ToLower(strings.TrimSpace(string(h)))] = true
	}
	best, bestShare := "", 0.0
	for _, b := range builtinMaps {
		n := 0
		for _, p := range b.pairs {
			if have[p.From] {
				n++
			}
		}
		if share := float64(n) / float64(len(b.pairs)); share >= 0.8 && share > bestShare {
			best, bestShare = b.name, share
		}
	}
	return best
}
