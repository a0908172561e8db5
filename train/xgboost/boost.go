package xgboost

import (
	"context"
	"math"
)

// Boost runs up to rounds boosting rounds on train. With valid, it
// evaluates metric (an Eval name such as "valid-rmse" or "valid-mlogloss")
// on it after each round and stops once patience rounds (> 0) pass
// without improvement; it returns the best round count (rounds without
// valid). ctx is checked between rounds. The booster keeps every round it
// ran: callers that want exactly the best retrain to it.
func (b *Booster) Boost(ctx context.Context, train, valid *DMatrix, rounds, patience int, metric string) (int, error) {
	best, bestLoss := rounds, math.Inf(1)
	for it := range rounds {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := b.Update(it, train); err != nil {
			return 0, err
		}
		if valid == nil {
			continue
		}
		line, err := b.Eval(it, []*DMatrix{valid}, []string{"valid"})
		if err != nil {
			return 0, err
		}
		ev, err := ParseEval(line)
		if err != nil {
			return 0, err
		}
		if l := ev[metric]; l < bestLoss {
			best, bestLoss = it+1, l
		} else if patience > 0 && it+1-best >= patience {
			break
		}
	}
	return best, nil
}
