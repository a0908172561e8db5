package analyze

import (
	"slices"

	"github.com/mirage-hpc/mirage/trace"
)

// volAgg is the volume of one month or partition.
type volAgg struct {
	jobs            int64
	nodeSec, gpuSec float64
	users, accounts map[string]struct{}
}

func newVolAgg() *volAgg {
	return &volAgg{users: map[string]struct{}{}, accounts: map[string]struct{}{}}
}

func (v *volAgg) add(user, account string, nodeSec, gpuSec float64) {
	v.jobs++
	v.nodeSec += nodeSec
	v.gpuSec += gpuSec
	if user != "" {
		v.users[user] = struct{}{}
	}
	if account != "" {
		v.accounts[account] = struct{}{}
	}
}

// volume accumulates jobs, users, accounts and node-hours by month and
// partition, and the job-size and time-limit distributions.
type volume struct {
	months     map[string]*volAgg
	partitions map[string]*volAgg
	sizes      map[int32]*SizeRow
	limits     map[string]*LimitRow
}

func newVolume() *volume {
	return &volume{months: map[string]*volAgg{}, partitions: map[string]*volAgg{},
		sizes: map[int32]*SizeRow{}, limits: map[string]*LimitRow{}}
}

// add counts job j submitted in month (empty when Submit is unknown).
func (v *volume) add(j *trace.Job, user, month string) {
	var nodeSec, gpuSec float64
	if rt, ok := j.RunTime(); ok && rt > 0 && !j.NeverStarted() { // End before Start counts as 0
		nodeSec = float64(j.NNodes) * rt.Seconds()
		gpuSec = float64(j.NGPUs) * rt.Seconds()
	}
	if month != "" {
		a := v.months[month]
		if a == nil {
			a = newVolAgg()
			v.months[month] = a
		}
		a.add(user, j.Account, nodeSec, gpuSec)
	}
	p := v.partitions[j.Partition]
	if p == nil {
		p = newVolAgg()
		v.partitions[j.Partition] = p
	}
	p.add(user, j.Account, nodeSec, gpuSec)
	s := v.sizes[j.NNodes]
	if s == nil {
		s = &SizeRow{Nodes: j.NNodes}
		v.sizes[j.NNodes] = s
	}
	s.Jobs++
	s.NodeHours += nodeSec / 3600
	lc := limitClass(j.TimelimitSec)
	l := v.limits[lc]
	if l == nil {
		l = &LimitRow{Class: lc}
		v.limits[lc] = l
	}
	l.Jobs++
	l.NodeHours += nodeSec / 3600
}

// tables returns the volume tables, sorted by month, partition, node
// count and limit class.
func (v *volume) tables() ([]MonthRow, []PartitionRow, []SizeRow, []LimitRow) {
	var months []MonthRow
	for _, m := range sortedKeys(v.months) {
		a := v.months[m]
		months = append(months, MonthRow{Month: m, Jobs: a.jobs, Users: int64(len(a.users)),
			Accounts: int64(len(a.accounts)), NodeHours: a.nodeSec / 3600, GPUHours: a.gpuSec / 3600})
	}
	var parts []PartitionRow
	for _, p := range sortedKeys(v.partitions) {
		a := v.partitions[p]
		parts = append(parts, PartitionRow{Partition: p, Jobs: a.jobs, Users: int64(len(a.users)),
			Accounts: int64(len(a.accounts)), NodeHours: a.nodeSec / 3600, GPUHours: a.gpuSec / 3600})
	}
	var sizes []SizeRow
	for _, n := range sortedKeys(v.sizes) {
		sizes = append(sizes, *v.sizes[n])
	}
	var limits []LimitRow
	for _, c := range limitClasses {
		if l := v.limits[c]; l != nil {
			limits = append(limits, *l)
		}
	}
	return months, parts, sizes, limits
}

// sortedKeys returns m's keys in ascending order.
func sortedKeys[K interface{ ~int32 | ~int64 | ~string }, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
