// Package dqn trains a Deep Q-Network provisioner of the service chain in
// the simulator and writes it as a model directory.
//
// The network is a small pure-Go MLP (float64; ReLU hidden layers; two
// Q-values: wait, submit; batched products through gonum BLAS) trained as
// a DQN: an online and a target network (synchronised every TargetSync
// gradient steps), experience replay, the Huber loss on the chosen action's
// Q, Adam and gradient-norm clipping, with an ε-greedy schedule. The target
// of a wait transition is either Double DQN's bootstrap (Config.Target
// "double") or, by default, "stopping": the realised reward where the
// target network's greedy rule would submit later in the same episode
// (Trajectory; the Longstaff–Schwartz estimator of optimal stopping). Everything random comes from
// math/rand/v2 PCG sources seeded from Config.Seed, so a seed fixes the
// weights.
//
// The environment (Env) is one window of the training period per episode:
// the main timeline of features.Timeline, a decision every DecisionSec
// from P's submission (the grid evaluate uses), the state the standardised
// feature vector, the actions wait and submit. The episode ends when Q is
// submitted (forced at P's end); the only reward is terminal,
// −(interruption h + λ·overlap h), from a fork of the main timeline in
// which Q is submitted and run until it starts. Waiting does not change the
// cluster, so with Config.AllActions (the default) every decision where the
// agent waits also stores the exact transition of submitting there
// (Env.SubmitOutcome, one more fork): Q(s, submit) is learnt from every
// visited state, not only where the episode ends. Bounds gives the reactive
// policy's and the hindsight oracle's returns on the held-out windows, the
// floor and ceiling of the validation return.
//
// Artifact: model.safetensors (F32 weights, layer i as "l{i}.weight"
// [out, in] and "l{i}.bias" [out]), model.onnx (the same network for other
// runtimes, see below) and manifest.json (features, standardisation
// statistics, architecture, hyper-parameters, seed, training-curve summary,
// sha256 of each file); curve.csv holds the training curve. model.onnx
// (EncodeONNX; IR version 8, opset 13) maps input "features", float
// [batch, n], the feature vector already standardised with the manifest's
// statistics, to output "q_values", float [batch, 2] (index 0 wait, 1
// submit), through a Gemm (transB=1) per layer with Relu between them; its
// initializers are named as in the safetensors file and its
// metadata_props are the manifest's versions.
package dqn
