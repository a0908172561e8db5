package ingest

// interner deduplicates the strings of low-cardinality columns (cluster,
// partition, account, user, QOS, ...) so that a million rows share a few
// hundred strings. It stops growing at maxInterned entries.
type interner map[string]string

const maxInterned = 1 << 16

func (in interner) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(in) < maxInterned {
		in[s] = s
	}
	return s
}
