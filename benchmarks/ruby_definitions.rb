# Definitions in a Ruby source on stdin, by Ruby's own parser (Ripper): one JSON array of
# [kind, name, name path, line, byte column, end line, header, body] for every def,
# def self.x, class and module, header and body being Ripper's tree without positions;
# `null` if the source does not parse.
require "ripper"
require "json"

# Ripper's tree with every [line, column] pair taken out, so moved code compares equal.
def strip(node)
  return node unless node.is_a?(Array)
  if node[0].is_a?(Symbol) && node[0].to_s.start_with?("@")
    node[0..1]
  else
    node.map { |child| strip(child) }
  end
end

def position(node)
  return nil unless node.is_a?(Array)
  return node[2] if node[0].is_a?(Symbol) && node[0].to_s.start_with?("@") && node[2].is_a?(Array)
  node.each do |child|
    found = position(child)
    return found if found
  end
  nil
end

def last_line(node, line)
  return line unless node.is_a?(Array)
  if node[0].is_a?(Symbol) && node[0].to_s.start_with?("@") && node[2].is_a?(Array)
    return [line, node[2][0]].max
  end
  node.reduce(line) { |found, child| last_line(child, found) }
end

def add(found, kind, name_node, prefix, header, body, whole)
  name = name_node[1]
  line, column = name_node[2]
  path = prefix.empty? ? name : "#{prefix}/#{name}"
  found << [kind, name, path, line, column, last_line(whole, line), JSON.generate(strip(header)), JSON.generate(strip(body))]
  path
end

def walk(node, found, prefix)
  return unless node.is_a?(Array)
  inner = prefix
  case node[0]
  when :def
    inner = add(found, "method", node[1], prefix, [node[1], node[2]], node[3], node) if node[1].is_a?(Array) && node[1][2]
  when :defs
    inner = add(found, "method", node[3], prefix, [node[1], node[3], node[4]], node[5], node) if node[3].is_a?(Array) && node[3][2]
  when :class, :module
    ref = node[1]
    const = ref[0] == :const_path_ref ? ref[2] : ref[1]
    if const.is_a?(Array) && const[2]
      header = node[0] == :class ? [ref, node[2]] : [ref]
      inner = add(found, node[0].to_s, const, prefix, header, node[0] == :class ? node[3] : node[2], node)
    end
  end
  node.each { |child| walk(child, found, inner) }
end

tree = Ripper.sexp($stdin.read)
if tree.nil?
  puts "null"
else
  found = []
  walk(tree, found, "")
  puts JSON.generate(found)
end
