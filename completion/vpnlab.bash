# bash completion for vpnlab: the candidates come from vpnlab itself (`vpnlab _complete`),
# so verbs, options and product names are always those of the installed binary.
_vpnlab() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local IFS=$'\n'
  local candidates
  candidates=$("${COMP_WORDS[0]}" _complete "$COMP_CWORD" "${COMP_WORDS[@]:1}" 2>/dev/null) || return 0
  case "$candidates" in
    _files)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur")) ;;
    _dirs)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -d -- "$cur")) ;;
    *)
      COMPREPLY=($candidates) ;;
  esac
}
complete -F _vpnlab vpnlab
