package dqn

import (
	"context"
	"fmt"

	"github.com/mirage-hpc/mirage/features"
	"github.com/mirage-hpc/mirage/train"
)

// ChooseBias puts the DQN on the same footing as the tree models: its one
// parameter, a bias on the advantage of submitting (submit when Q(s,
// submit) − Q(s, wait) + bias ≥ 0; bias 0 is the greedy rule up to ties),
// is chosen for an overlap budget (hours of mean overlap per window) on
// held-out windows of the training period, never the validation months.
// Along each held-out window's decisions (waiting never changes the
// cluster) it records the advantage and the r of submitting there, then
// replays the threshold rule with train.ChooseOperatingPoint.
func ChooseBias(ctx context.Context, env *Env, net *MLP, st Stats, starts []int64, budgetH float64) (*train.OperatingPoint, error) {
	if len(starts) == 0 {
		return nil, fmt.Errorf("dqn: no held-out windows to choose the bias on")
	}
	raw := make([]float64, features.NumFeatures())
	var s, q []float64
	var scores []float64
	var rs []int64
	var units []train.Unit
	for _, start := range starts {
		for _, nodes := range env.ChainNodes() {
			if err := env.Reset(ctx, start, nodes, raw); err != nil {
				return nil, err
			}
			u := train.Unit{ChainNodes: int32(nodes)}
			for {
				s = st.Apply(s, raw)
				q = net.Forward(q, s)
				u.Rows = append(u.Rows, len(scores))
				scores = append(scores, q[ActionSubmit]-q[ActionWait])
				if env.Last() {
					if _, _, err := env.Step(ctx, ActionSubmit, raw); err != nil {
						return nil, err
					}
					rs = append(rs, env.RSec())
					break
				}
				_, r, err := env.SubmitOutcome(ctx)
				if err != nil {
					return nil, err
				}
				rs = append(rs, r)
				if _, _, err := env.Step(ctx, ActionWait, raw); err != nil {
					return nil, err
				}
			}
			units = append(units, u)
		}
	}
	return train.ChooseOperatingPoint(train.TargetAdvantage, scores, rs, units, budgetH, false,
		fmt.Sprintf("the trained network replayed on %d held-out windows of the training period x %d chain sizes", len(starts), len(env.ChainNodes())))
}
