package main

// partitionFlag names the setting that sizes the partition: flag, or with
// a study its cluster.nodes as well.
func partitionFlag(study, flag string) string {
	if study != "" {
		return "the study's cluster.nodes (or " + flag + ")"
	}
	return flag
}
