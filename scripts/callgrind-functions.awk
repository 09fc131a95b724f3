# The functions of one program a callgrind file saw run, one mangled name a line, in the order they
# first appear (run valgrind with --demangle=no): link-order.sh writes scripts/snapsized.order from
# them, and callgrind-per-call.sh checks that file against them.
#   awk -v program=/snapsized$ -f scripts/callgrind-functions.awk callgrind.out
# Only records whose object (ob=) matches `program`, a regular expression: the functions linked
# into it. Callgrind names a recursive call NAME'2 (the same function); "(below main)" and bare
# addresses are no function.
/^ob=\(/ { id = $1; sub(/^ob=/, "", id); if (NF > 1) { name = $0; sub(/^ob=\([0-9]+\) /, "", name); objects[id] = name }
           current = objects[id]; next }
/^cob=\(/ { id = $1; sub(/^cob=/, "", id); if (NF > 1) { name = $0; sub(/^cob=\([0-9]+\) /, "", name); objects[id] = name }; next }
/^c?fn=\(/ { kind = substr($0, 1, 1); id = $1; sub(/^c?fn=/, "", id)
             if (NF > 1) { name = $0; sub(/^c?fn=\([0-9]+\) /, "", name); functions[id] = name }
             symbol = functions[id]; sub(/'[0-9]+$/, "", symbol)
             if (kind == "f" && current ~ program && symbol !~ /^0x|^\(/ && !(symbol in seen)) { seen[symbol] = 1; print symbol } }
