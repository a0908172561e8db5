package replay

import (
	"fmt"
	"strings"
)

// Describe writes the calibration as the comment block of a profile file.
func (c Calibration) Describe(trace string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Calibrated by mirage sim calibrate on %s: fitted on %s to %s (%d candidate settings, %d month replays),\n",
		trace, c.CalibrationMonths[0], c.CalibrationMonths[len(c.CalibrationMonths)-1], c.Candidates, c.Replays)
	fmt.Fprintf(&b, "# best: %s.\n", c.Best)
	fmt.Fprintf(&b, "# Wait fidelity, calibration months: base Spearman %.3f, within 2x %.1f%% -> fitted %.3f, %.1f%% (%d jobs).\n",
		c.Base.Spearman, 100*c.Base.Within2x, c.Fitted.Spearman, 100*c.Fitted.Within2x, c.Fitted.Jobs)
	if len(c.CheckMonths) > 0 {
		fmt.Fprintf(&b, "# Check months %s to %s (not used to fit): base Spearman %.3f, within 2x %.1f%% -> fitted %.3f, %.1f%% (%d jobs).\n",
			c.CheckMonths[0], c.CheckMonths[len(c.CheckMonths)-1], c.CheckBase.Spearman, 100*c.CheckBase.Within2x,
			c.CheckFitted.Spearman, 100*c.CheckFitted.Within2x, c.CheckFitted.Jobs)
	} else {
		b.WriteString("# No check months after the calibration span: the fit is not checked out of sample.\n")
	}
	if c.Best != c.Grid {
		fmt.Fprintf(&b, "# The grid's best was %s; the coordinate search (%d neighbours on %d months) moved it.\n", c.Grid, len(c.Tuning), c.TuneMonths)
	}
	switch ch := c.Fitted.Chains; {
	case ch == nil:
	case ch.Links < minChainLinks:
		fmt.Fprintf(&b, "# The detector found too few service chains (jobs run to their limit and resubmitted; %d links replayed) on the calibration months: the chains are not scored.\n", ch.Links)
	default:
		fmt.Fprintf(&b, "# The trace's own chains on the calibration months (%d links replayed, a month at a time): real interruption %.1f h, simulated reactive %.1f h fitted",
			ch.Links, ch.RealH, ch.ReactiveH)
		if c.Base.Chains != nil {
			fmt.Fprintf(&b, ", %.1f h base", c.Base.Chains.ReactiveH)
		}
		fmt.Fprintf(&b, " (scored: Spearman + within 2x - %.2f |ln(simulated / real)|).\n", c.ChainWeight)
	}
	if c.ChainBase != nil && c.ChainFitted != nil && c.ChainFitted.Links > 0 {
		fmt.Fprintf(&b, "# Chains of the check months (%d links): real %.1f h; simulated reactive base %.1f h -> fitted %.1f h.\n",
			c.ChainFitted.Links, c.ChainFitted.RealH, c.ChainBase.ReactiveH, c.ChainFitted.ReactiveH)
	}
	return b.String()
}
