#!/bin/bash
# The interleaved run behind webhooks-2026-11-25.md. Build both binaries first:
#   the base, exported: mkdir -p /tmp/hookbody/basesrc && git archive b3d224c | tar -x -C /tmp/hookbody/basesrc
#   (cd /tmp/hookbody/basesrc && go build -o /tmp/hookbody/alertd-base ./cmd/alertd)
#   go build -o /tmp/hookbody/alertd-new ./cmd/alertd && go build -o /tmp/hookbody/webhookbench ./bench/cmd/webhookbench
# PG is the testpg cluster (scripts/testpg.sh); each run gets a fresh database.
# Interleaved before/after: base (b3d224c) and new (wt/hookbody), embedded then PostgreSQL.
PSQL=/usr/lib/postgresql/15/bin/psql
PG=postgres://postgres@127.0.0.1:55432
common="-webhooks 100 -posts 1000 -latency-duration 3s -fairness-rounds 2"
run() { # name bin store
  name=$1; bin=$2; store=$3
  extra=""
  if [ "$store" = pg ]; then
    db="hookbench_${name}_$(date +%s)"
    $PSQL "$PG/postgres" -qc "CREATE DATABASE $db" || return
    extra="-database-url $PG/$db?sslmode=disable"
  fi
  echo "== $(date -u +%T) $name $store load $(cut -d' ' -f1-3 /proc/loadavg)"
  /tmp/hookbody/webhookbench -bin $bin -out /tmp/hookbody/final/$name-$store -note "$name ($store), interleaved run, busy machine" $common $extra 2>&1 | grep -v "^#\|^|\|^$\|^Numbers\|^Throughput"
  echo "   load after $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "$store" = pg ]; then $PSQL "$PG/postgres" -qc "DROP DATABASE $db"; fi
}
mkdir -p /tmp/hookbody/final
run base1 /tmp/hookbody/alertd-base emb
run new1 /tmp/hookbody/alertd-new emb
run base2 /tmp/hookbody/alertd-base emb
run new2 /tmp/hookbody/alertd-new emb
run base1 /tmp/hookbody/alertd-base pg
run new1 /tmp/hookbody/alertd-new pg
run base2 /tmp/hookbody/alertd-base pg
run new2 /tmp/hookbody/alertd-new pg
