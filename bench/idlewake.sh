#!/bin/bash
# idlewake.sh SECS WEBHOOKS BIN_A BIN_B: two phone binaries idle side by
# side in the same stretch (no account, API on, webhooks off with 0, on with
# 1 toward a closed port and an empty outbox), and each one's wake-ups a
# second (voluntary + involuntary context switches of all its threads, from
# /proc/<pid>/task/*/status) and CPU (schedstat, to the ns) over SECS, after
# 8 s to settle (issue 20). Run it in a network namespace of its own:
#   unshare -n bash -c 'ip link set lo up && bench/idlewake.sh 30 0 /tmp/main-phone ./softphone'
set -u
secs=$1 hooks=$2
bins=("$3" "$4")
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
sw() { local s=0 f; for f in /proc/$1/task/*/status; do s=$((s + $(awk '/^(non)?voluntary_ctxt_switches/{n+=$2} END{print n+0}' "$f" 2>/dev/null || echo 0))); done; echo $s; }
cpu() { local s=0 f a; for f in /proc/$1/task/*/schedstat; do read -r a _ < "$f" 2>/dev/null && s=$((s + a)); done; echo $s; }
pids=()
for n in 0 1; do
  h=$root/home$n
  mkdir -p "$h"
  base='"api":{"enabled":true,"port":1808'$n'},"sip":{"listen":"127.0.0.1:1506'$n'"}'
  if [ "$hooks" = 1 ]; then
    echo '{'"$base"',"integration":{"enabled":true},"webhooks":{"enabled":true,"url":"http://127.0.0.1:9/hook"}}' > "$h/settings.json"
  else
    echo '{'"$base"'}' > "$h/settings.json"
  fi
  HOME=$h DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/bus "${bins[$n]}" --home "$h" --no-browser >/dev/null 2>"$h/log" &
  pids+=($!)
done
sleep 8
s0=() c0=()
for n in 0 1; do s0[$n]=$(sw "${pids[$n]}"); c0[$n]=$(cpu "${pids[$n]}"); done
t0=$(date +%s.%N)
sleep "$secs"
t1=$(date +%s.%N)
for n in 0 1; do
  p=${pids[$n]}
  awk -v b="${bins[$n]}" -v ds=$(($(sw "$p") - s0[n])) -v dc=$(($(cpu "$p") - c0[n])) -v t0="$t0" -v t1="$t1" -v hk="$hooks" \
    'BEGIN{w=t1-t0; printf "%s webhooks=%s: %.2f wake-ups/s, %.4f%% of a core over %.1f s\n", b, hk, ds/w, 100*dc/1e9/w, w}'
done
kill -INT "${pids[@]}"
wait
