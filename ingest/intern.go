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

// lastString is a one-entry cache in front of an interner, for one column:
// consecutive rows often repeat a value (same user, partition, QOS), and
// comparing with the last one is cheaper than a map lookup.
type lastString struct{ s string }

func (c *lastString) get(in interner, b []byte) string {
	if string(b) == c.s {
		return c.s
	}
	c.s = in.get(b)
	return c.s
}
