#!/usr/bin/env bash
# Linecatch 5×5's shipped network, from scratch: a 64×4 tower that imitates the exact solver.
#
#     bash scripts/linecatch_dagger.sh [OUT_DIR] [ROUNDS]     # default runs/linecatch_dagger, 5 rounds (at most 5)
#
# 1. A warm start: the network imitates the solver's own games (training.alphazero's
#    --warm-start). The shipped file was made with one token iteration of self-play after it
#    (2 games, 1 minibatch), kept here so that the recipe is the one that made it; today
#    --iterations 0 stops after the warm start.
# 2. DAgger rounds (training.endgame_tuning --teacher solver): the network plays 8,000 games
#    against the heuristic and itself; the solver labels every decision it made with its optimal
#    squares; the network learns on this round's positions and every earlier round's.
#
# About 65 minutes on 2 cores for 5 rounds. The last round's agent.zip is the result; the
# script prints its folder. Each step's own command is in its folder's config.json.
set -euo pipefail
out="${1:-runs/linecatch_dagger}"
rounds="${2:-5}"
if ! [[ "$rounds" =~ ^[1-5]$ ]]; then echo "ROUNDS must be 1 to 5, not $rounds" >&2; exit 2; fi
mkdir -p "$out"
newest() { ls -td "$out"/"$1"__* | head -n 1; }

python -m training.alphazero --game linecatch --filters 64 --blocks 4 --warm-start solver \
    --warm-start-games 3000 --warm-start-steps 5000 --iterations 1 --games-per-iteration 2 \
    --steps-per-iteration 1 --simulations 2 --eval-games 20 --final-eval-games 0 \
    --seed 41 --workers 2 --torch-threads 2 --out-dir "$out"
agent="$(newest linecatch__alphazero__41)/latest.zip"

steps=(6000 9000 10000 10000 10000)
rates=(0.001 0.0005 0.0003 0.0003 0.0003)
earlier=()
for ((round = 0; round < rounds; round++)); do
    seed=$((42 + round))
    python -m training.endgame_tuning --agent "$agent" --teacher solver --games 8000 \
        --opponents heuristic self --steps "${steps[round]}" --learning-rate "${rates[round]}" \
        --value-targets --keep-positions ${earlier[@]+--earlier-positions "${earlier[@]}"} \
        --eval-games 50 --workers 2 --torch-threads 2 --seed "$seed" --out-dir "$out"
    folder="$(newest linecatch__dagger__$seed)"
    agent="$folder/agent.zip"
    earlier+=("$folder/positions.npz")
done
echo "result: $agent"
