# bash completion for pollscale. Load it with
#   source scripts/completion/pollscale.bash
# (or copy it to /usr/share/bash-completion/completions/pollscale). Commands and options are
# read from the binary's own --help, so they never drift from what it accepts.

_pollscale_commands() {
  "$1" --help 2>/dev/null | awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { f = 0 }'
}

# Options start a help line: "  --name VALUE" or "  -o [ --out ] DIR".
_pollscale_options() {
  "$1" "$2" --help 2>/dev/null | sed -nE 's/^  (-[a-zA-Z] \[ )?(--[a-z0-9-]+).*/\2/p'
}

_pollscale() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} bin=${COMP_WORDS[0]}
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    mapfile -t COMPREPLY < <(compgen -W "$(_pollscale_commands "$bin") --help --version" -- "$cur")
    return
  fi
  local words=""
  case $prev in
    --format) words="table csv json" ;;
    --gate) words="mechanisms series points" ;;
    --points) words="significant all" ;;
    --statistic) words="median fastest adjusted" ;;
    --model-uncertainty) words="draw fixed" ;;
    --simulator-check) words="on off" ;;
    --between-runs-horizon) words="minutes hours" ;;
    --family) words="mechanistic extra-p" ;;
    --vary) words="idle active rate" ;;
    --arrivals) words="closed poisson on_off" ;;
    --mechanism | --mechanisms) words="select pselect poll ppoll epoll rtsig io_uring" ;;
  esac
  if [[ -n $words ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
  elif [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_pollscale_options "$bin" "${COMP_WORDS[1]}")" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")  # datasets, model.json, folders
  fi
}

complete -o filenames -F _pollscale pollscale
