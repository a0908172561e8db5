package reports

// Series is one plotted line, set of points or set of intervals.
type Series struct {
	// Label is the legend entry; series with the same label (in several
	// panels) share one entry; "" has none.
	Label string `json:"label"`
	// Kind is "step" (a CDF), "line" (with points), "curve" (line only),
	// "points", "whiskers" (Y with the interval Lo–Hi per point) or
	// "vline" (a vertical line at X[0] across the panel).
	Kind string    `json:"kind"`
	X    []float64 `json:"x"`
	Y    []float64 `json:"y"`
	// Lo and Hi are a "whiskers" series' interval bounds, one per point.
	Lo []float64 `json:"lo,omitempty"`
	Hi []float64 `json:"hi,omitempty"`
	// Names label points (drawn beside each).
	Names []string `json:"names,omitempty"`
	// Panel is the index into Figure.Panels of the panel the series is
	// drawn in.
	Panel int `json:"panel,omitempty"`
	// Style picks the colour (Okabe–Ito, then six of Paul Tol's; Style mod 13) and the dash pattern
	// (Style mod 3) and glyph; the same policy has the same Style in every
	// figure of a report.
	Style int `json:"style"`
	// Faint draws points small and light grey (raw values under a
	// smoothed "curve").
	Faint bool `json:"faint,omitempty"`
	// Highlight draws points large with a black ring (chosen operating
	// points).
	Highlight bool `json:"highlight,omitempty"`
}

// Panel is one plot area of a figure.
type Panel struct {
	Title  string `json:"title,omitempty"`
	XLabel string `json:"x_label"`
	YLabel string `json:"y_label"`
	// XLogHours draws x (hours) on a log scale with time ticks (1 min,
	// 1 h, 1 day, …).
	XLogHours bool `json:"x_log_hours,omitempty"`
	// XSymHours draws signed x (hours) on an asinh scale, linear within
	// about ±1 h and logarithmic beyond, with ticks labelled at 0, ±1,
	// ±6, ±24 and ±72 h: values near 0 stay apart when the range
	// spans days.
	XSymHours bool `json:"x_sym_hours,omitempty"`
	// XMin, XMax, YMin and YMax fix the axis range (nil: from the data).
	// Points beyond XMax or XMin are drawn at the edge with their value
	// written beside them; step lines are cut at the edge.
	XMin *float64 `json:"x_min,omitempty"`
	XMax *float64 `json:"x_max,omitempty"`
	YMin *float64 `json:"y_min,omitempty"`
	YMax *float64 `json:"y_max,omitempty"`
	// Nominal names the x positions 0, 1, … (categories) instead of
	// numbers.
	Nominal []string `json:"nominal,omitempty"`
}

// Figure is one figure's data and the files it was drawn into.
type Figure struct {
	Name    string `json:"name"` // file stem, e.g. "frontier"
	Title   string `json:"title"`
	Caption string `json:"caption"`
	// Panels are laid out Cols per row (0: one per row), left to right,
	// top to bottom.
	Panels []Panel  `json:"panels"`
	Cols   int      `json:"cols,omitempty"`
	Series []Series `json:"series"`
	Files  []string `json:"files,omitempty"` // file names written, in the report directory
}

// ptr returns a pointer to v (for Panel's optional bounds).
func ptr(v float64) *float64 { return &v }

// rows returns the number of panel rows.
func (f *Figure) rows() int {
	c := max(f.Cols, 1)
	return (len(f.Panels) + c - 1) / c
}
