package synth

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// user is one member of the synthetic population, with the strings of
// its rows prepared once.
type user struct {
	uid      int64
	userUID  string    // "User|UID|" of allocation rows
	index    int32     // position in population.users (activity rank)
	names    [2]string // job names; names[0] is used pFirstName of the time
	nameID   [2]int32  // indices of names in population.names
	acct     [2]int32  // account indices; acct[1] == acct[0] when none
	prefLim  int32     // index into limitMix
	prefNode int32     // index into nodeMix
	mem      int32     // index into memKinds
	prioBase int64     // fair-share part of the priority
	cancelBy string    // "CANCELLED by UID"
}

// population is the users and accounts of a run.
type population struct {
	users    []user
	pick     alias    // user by activity
	accounts []string // "Account|Partition|QOS|"
	acctName []string
	names    []string // distinct job names in order of creation
}

// newPopulation draws the users from r. Users are ranked by activity;
// rank 0 submits the most.
func newPopulation(r *rand.Rand) *population {
	p := &population{users: make([]user, Users)}
	seen := make(map[string]bool, accounts)
	for len(p.acctName) < accounts {
		name := accountPrefixes[r.IntN(len(accountPrefixes))] + strconv.Itoa(20+r.IntN(4)) + pad3(int64(r.IntN(1000)))
		if seen[name] {
			continue
		}
		seen[name] = true
		p.acctName = append(p.acctName, name)
		p.accounts = append(p.accounts, name+"|"+Partition+"|"+QOS+"|")
	}
	weights := make([]float64, Users)
	// Shuffled numbering, so a user's number does not give away its rank.
	nums := r.Perm(Users)
	mems := memAlias()
	nameIDs := map[string]int32{}
	for k := range p.users {
		weights[k] = math.Pow(float64(k)+zipfV, -zipfS)
		u := &p.users[k]
		u.index = int32(k)
		u.uid = 800000 + int64(nums[k])*17 + int64(r.IntN(17))
		name := "u" + pad3(int64(nums[k]+1))
		u.userUID = name + "|" + strconv.FormatInt(u.uid, 10) + "|"
		u.cancelBy = "CANCELLED by " + strconv.FormatInt(u.uid, 10)
		for i := range u.names {
			n := jobNames[r.IntN(len(jobNames))]
			if r.IntN(3) == 0 {
				n += "_" + strconv.Itoa(r.IntN(100))
			}
			u.names[i] = n
			id, ok := nameIDs[n]
			if !ok {
				id = int32(len(p.names))
				nameIDs[n] = id
				p.names = append(p.names, n)
			}
			u.nameID[i] = id
		}
		u.acct[0] = int32(r.IntN(accounts))
		u.acct[1] = u.acct[0]
		if r.Float64() < pSecondAccount {
			u.acct[1] = int32(r.IntN(accounts))
		}
		u.mem = int32(mems.draw(r))
		// Heavy users have used up their fair share.
		u.prioBase = int64(3000 * float64(k) / Users)
	}
	p.pick = newAlias(weights)
	lw := make([]float64, len(limitMix))
	for i, l := range limitMix {
		lw[i] = l.weight
	}
	for k, i := range stratify(r, weights, lw) {
		p.users[k].prefLim = int32(i)
	}
	nw := make([]float64, len(nodeMix))
	for i, n := range nodeMix {
		nw[i] = n.weight
	}
	for k, i := range stratify(r, weights, nw) {
		p.users[k].prefNode = int32(i)
	}
	return p
}

// stratify assigns each user (with activity weights) one category of mix
// so that the activity-weighted share of each category is close to its
// weight: users are laid end to end, in random order, on [0, 1) with
// lengths proportional to their weights, and each user gets the category
// whose quantile range holds the user's midpoint. Independent draws would
// let the few heaviest users skew the mix far from its weights.
func stratify(r *rand.Rand, weights, mix []float64) []int {
	var wsum, msum float64
	for _, w := range weights {
		wsum += w
	}
	for _, m := range mix {
		msum += m
	}
	out := make([]int, len(weights))
	var at float64
	for _, k := range r.Perm(len(weights)) {
		mid := (at + weights[k]/2) / wsum * msum
		at += weights[k]
		i, c := 0, mix[0]
		for c <= mid && i < len(mix)-1 {
			i++
			c += mix[i]
		}
		out[k] = i
	}
	return out
}

func limitAlias() alias {
	w := make([]float64, len(limitMix))
	for i, l := range limitMix {
		w[i] = l.weight
	}
	return newAlias(w)
}

func nodeAlias() alias {
	w := make([]float64, len(nodeMix))
	for i, n := range nodeMix {
		w[i] = n.weight
	}
	return newAlias(w)
}

func memAlias() alias {
	w := make([]float64, len(memKinds))
	for i, m := range memKinds {
		w[i] = m.weight
	}
	return newAlias(w)
}

// pad3 formats n with at least three digits.
func pad3(n int64) string {
	s := strconv.FormatInt(n, 10)
	for len(s) < 3 {
		s = "0" + s
	}
	return s
}

// meanNodeSeconds returns the expected node-seconds of one job (pending
// cancellations included, as zero), given the population and the node
// cap.
func (p *population) meanNodeSeconds(capNodes int32) float64 {
	var wsum, limW, nodeW float64
	for _, l := range limitMix {
		limW += l.weight
	}
	for _, n := range nodeMix {
		nodeW += n.weight
	}
	var meanLim, meanNodes float64 // global mixes, limit in seconds
	for _, l := range limitMix {
		meanLim += l.weight / limW * float64(l.min*60)
	}
	for _, n := range nodeMix {
		meanNodes += n.weight / nodeW * float64(min(n.nodes, capNodes))
	}
	share, overrun := runShare()
	arrays := arrayShare()
	var total float64
	for k := range p.users {
		w := math.Pow(float64(k)+zipfV, -zipfS)
		wsum += w
		u := &p.users[k]
		lim := pStickLimit*float64(limitMix[u.prefLim].min*60) + (1-pStickLimit)*meanLim
		nodes := pStickNodes*float64(min(nodeMix[u.prefNode].nodes, capNodes)) + (1-pStickNodes)*meanNodes
		nodes = arrays*1 + (1-arrays)*nodes // array tasks have one node
		total += w * nodes * (share*lim + overrun)
	}
	return (1 - pCancelPending) * total / wsum
}
