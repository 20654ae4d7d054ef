# bash completion for pmcbench (installed as share/bash-completion/completions/pmcbench).
# The subcommands, each one's options and which of them take a value are read from the
# pmcbench being completed (`pmcbench --help`, `pmcbench help CMD`), and event names from
# `pmcbench list --names`, so the completion cannot drift from the program.

# Prints "SHORT LONG ARG" for each option of subcommand $2 of program $1 (SHORT and ARG
# may be "-"), from its help's option lines: "  -o, --output=FILE  ..." or
# "      --format FMT  ...".
_pmcbench_options()
{
	"$1" help "$2" 2>/dev/null | sed -nE \
		's/^ {2,6}(-([A-Za-z0-9]), )?--([a-z][a-z0-9-]*)([= ]([A-Z][A-Za-z0-9|._=]*))?( .*)?$/\2 \3 \5/p' |
		while read -r s l a; do
			if [ -z "$a" ] && [ ${#s} -gt 1 ]; then
				a=$l l=$s s=
			fi
			echo "${s:--} $l ${a:--}"
		done
	echo "h help -"
}

# The values of option --$1 whose argument is named $2, for compgen -W; "@files" for a
# file name, "@events" for an event list, empty when there is nothing to offer.
_pmcbench_values()
{
	case $1 in
	events) echo @events ;;
	format) echo table brief json csv markdown gobench ;;
	color) echo auto always never ;;
	row) echo benchmark metric ;;
	col) echo file ;;
	backend) echo perf valgrind ;;
	valgrind-tool) echo callgrind cachegrind ;;
	runs) echo auto ;;
	*) case $2 in *FILE* | *PATH* | *DIR*) echo @files ;; esac ;;
	esac
}

_pmcbench_complete_value()
{
	local prog=$1 vals=$2 cur=$3 head
	case $vals in
	@files)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		;;
	@events)
		# An event list: complete the last item after a comma or a brace.
		head=${cur%"${cur##*[,\{]}"}
		mapfile -t COMPREPLY < <(compgen -P "$head" -W "$("$prog" list --names 2>/dev/null)" -- "${cur##*[,\{]}")
		compopt -o nospace 2>/dev/null
		;;
	*) mapfile -t COMPREPLY < <(compgen -W "$vals" -- "$cur") ;;
	esac
}

_pmcbench()
{
	local prog=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} cword=$COMP_CWORD
	local prev= cmd opts opt s l a i
	COMPREPLY=()
	[ "$cword" -gt 0 ] && prev=${COMP_WORDS[cword - 1]}
	if [ "$cword" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$("$prog" --help 2>/dev/null |
			sed -nE 's/^  ([a-z]+) +.*/\1/p') --help --version" -- "$cur")
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	# history's actions, from its help as the commands are from the top level's.
	if [ "$cmd" = history ] && [ "$cword" -eq 2 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$("$prog" help history 2>/dev/null |
			sed -nE 's/^  ([a-z]+) +.*/\1/p')" -- "$cur")
		return 0
	fi
	if [ "$cmd" = help ]; then
		[ "$cword" -eq 2 ] && mapfile -t COMPREPLY < <(compgen -W "$("$prog" --help 2>/dev/null |
			sed -nE 's/^  ([a-z]+) +.*/\1/p')" -- "$cur")
		return 0
	fi
	# After "--", the measured command: its name, then files.
	for ((i = 2; i < cword; i++)); do
		if [ "${COMP_WORDS[i]}" = -- ]; then
			if [ $((i + 1)) -eq "$cword" ]; then
				mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
			else
				_pmcbench_complete_value "$prog" @files "$cur"
			fi
			return 0
		fi
	done
	opts=$(_pmcbench_options "$prog" "$cmd")
	# "--opt=value": bash splits at "=" (COMP_WORDBREAKS), giving "--opt" "=" "value".
	opt=
	if [[ $cur == --*=* ]]; then
		# One word when COMP_WORDBREAKS has no "=": complete the value after it.
		opt=${cur%%=*}
		while read -r s l a; do
			if [ "$opt" = "--$l" ] && [ "$a" != - ]; then
				_pmcbench_complete_value "$prog" "$(_pmcbench_values "$l" "$a")" "${cur#*=}"
				COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
				return 0
			fi
		done <<<"$opts"
		return 0
	elif [ "$cur" = = ]; then
		opt=$prev cur=
	elif [ "$prev" = = ] && [ "$cword" -ge 3 ]; then
		opt=${COMP_WORDS[cword - 2]}
	elif [[ $prev == -* ]]; then
		opt=$prev
	fi
	if [ -n "$opt" ]; then
		while read -r s l a; do
			if [ "$opt" = "--$l" ] || [ "$opt" = "-$s" ]; then
				[ "$a" = - ] && break
				_pmcbench_complete_value "$prog" "$(_pmcbench_values "$l" "$a")" "$cur"
				return 0
			fi
		done <<<"$opts"
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(while read -r s l a; do
			[ "$s" != - ] && echo "-$s"
			echo "--$l"
		done <<<"$opts" | sort -u)" -- "$cur")
		return 0
	fi
	case $cmd in
	list) _pmcbench_complete_value "$prog" @events "$cur" ;;
	*) _pmcbench_complete_value "$prog" @files "$cur" ;;
	esac
	return 0
}
complete -F _pmcbench pmcbench
