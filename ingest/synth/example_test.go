package synth_test

import (
	"fmt"
	"os"

	"github.com/mirage-hpc/mirage/ingest/synth"
)

// The output is fixed for a seed, so these examples also catch unintended
// changes to the model.
func ExampleWriteSacct() {
	opts := synth.DefaultOptions()
	opts.Jobs = 3
	st, err := synth.WriteSacct(os.Stdout, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Jobs, "jobs,", st.Started, "started,", st.CancelledPending, "cancelled while pending")
	// Output:
	// JobID|JobIDRaw|JobName|User|UID|Account|Partition|QOS|State|ExitCode|Submit|Eligible|Start|End|ElapsedRaw|Timelimit|TimelimitRaw|NNodes|NCPUS|ReqMem|ReqTRES|AllocTRES|Priority|Cluster
	// 7332|7332|lammps_2|u191|803241|ATM23677|gpu-a100|normal|COMPLETED|0:0|2022-11-01T00:00:00|2022-11-01T00:00:00|2022-11-01T00:00:00|2022-11-01T13:59:05|50345|1-06:00:00|1800|1|128|250G|billing=128,cpu=128,gres/gpu=3,mem=250G,node=1|billing=128,cpu=128,gres/gpu=3,mem=250G,node=1|1246|synth
	// 7333|7333|lammps_2|u191|803241|ATM23677|gpu-a100|normal|COMPLETED|0:0|2022-11-01T00:00:02|2022-11-01T00:00:02|2022-11-01T00:00:02|2022-11-01T00:01:03|61|1-06:00:00|1800|1|128|250G|billing=128,cpu=128,gres/gpu=3,mem=250G,node=1|billing=128,cpu=128,gres/gpu=3,mem=250G,node=1|1104|synth
	// 7336|7336|lammps_2|u191|803241|ATM23677|gpu-a100|normal|COMPLETED|0:0|2022-11-01T00:00:11|2022-11-01T00:00:11|2022-11-01T00:00:11|2022-11-02T01:42:21|92530|1-06:00:00|1800|1|128|250G|billing=128,cpu=128,gres/gpu=3,mem=250G,node=1|billing=128,cpu=128,gres/gpu=3,mem=250G,node=1|1133|synth
	// 3 jobs, 3 started, 0 cancelled while pending
}

func ExampleWriteSWF() {
	opts := synth.DefaultOptions()
	opts.Jobs = 3
	if _, err := synth.WriteSWF(os.Stdout, opts); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ; Version: 2.2
	// ; Computer: synthetic whole-node GPU partition (128 cores, 3 GPUs per node)
	// ; Installation: synth
	// ; Information: SYNTHETIC DATA from the Mirage workload generator (package ingest/synth); not a real trace
	// ; Conversion: generated with seed 1, target utilisation 0.7
	// ; MaxJobs: 3
	// ; MaxRecords: 3
	// ; Preemption: No
	// ; UnixStartTime: 1667278800
	// ; TimeZoneString: America/Chicago
	// ; StartTime: Tue Nov  1 00:00:00 CDT 2022
	// ; MaxNodes: 88
	// ; MaxProcs: 11264
	// ; AllowOveruse: No
	// ; MaxQueues: 1
	// ; Queues: 1 normal
	// ; MaxPartitions: 1
	// ; Partitions: 1 gpu-a100
	// ; Note: Status 1 completed, 0 failed (incl. timeout, out of memory, node failure), 5 cancelled
	// ; Note: Group is the account; Executable numbers the job name; processors are CPUs
	// 1 0 0 50345 128 -1 -1 128 108000 2048000 1 1 1 1 1 1 -1 -1
	// 2 2 0 61 128 -1 -1 128 108000 2048000 1 1 1 1 1 1 -1 -1
	// 3 11 0 92530 128 -1 -1 128 108000 2048000 1 1 1 1 1 1 -1 -1
}
