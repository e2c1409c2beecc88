# Definitions in a Ruby source on stdin, by Ruby's own parser (Ripper): one JSON array of
# [kind, name, line, byte column] for every def, def self.x, class and module; `null` if it
# does not parse.
require "ripper"
require "json"

def walk(node, found)
  return unless node.is_a?(Array)
  case node[0]
  when :def
    found << ["method", node[1][1], *node[1][2]] if node[1].is_a?(Array) && node[1][2]
  when :defs
    found << ["method", node[3][1], *node[3][2]] if node[3].is_a?(Array) && node[3][2]
  when :class, :module
    ref = node[1]
    const = ref[0] == :const_path_ref ? ref[2] : ref[1]
    found << [node[0].to_s, const[1], *const[2]] if const.is_a?(Array) && const[2]
  end
  node.each { |child| walk(child, found) }
end

tree = Ripper.sexp($stdin.read)
if tree.nil?
  puts "null"
else
  found = []
  walk(tree, found)
  puts JSON.generate(found)
end
