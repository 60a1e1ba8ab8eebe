# Reads AsciiDoc files with Asciidoctor and writes each one's structure as one line of
# JSON, for ragcli/blocks/asciidoc.py: one request per line on stdin ({"path": ...}),
# one answer per line on stdout, so a process serves a whole ingest.
#
# Each block is a hash: "t" (its kind), "line" (its first line in the file, from
# Asciidoctor's sourcemap) and its content; inline text is Asciidoctor's HTML, which the
# Python side reads as text. An include directive is not followed (the file it names is
# read on its own, as reST's are): it becomes a marker line the Python side reads as a
# reference, unless the file holds attribute entries only (a shared `attributes.adoc`),
# which is read so the page's attributes are substituted.
require 'asciidoctor'
require 'json'

MARK = "\u0001ragcli-include\u0001"
ATTRIBUTE_LINE = /\A\s*(?::!?[^:\s][^:]*!?:.*|\/\/.*|(?:ifn?def|ifeval|endif)::.*)?\s*\z/

class ReferenceIncludes < Asciidoctor::Extensions::IncludeProcessor
  def handles?(_target)
    true
  end

  def process(doc, reader, target, attributes)
    path = File.expand_path(target, reader.dir)
    if !target.include?('://') && File.file?(path) && File.size(path) < 65_536
      lines = File.read(path, mode: 'r:bom|utf-8').lines.map(&:chomp)
      if lines.all? { |line| ATTRIBUTE_LINE.match?(line) }
        reader.push_include(lines, path, target, 1, attributes)
        return
      end
    end
    # The marker stands where the directive stood: the blocks after it keep their lines.
    reader.push_include(["#{MARK}#{target}"], reader.file, reader.path, reader.lineno - 1, attributes)
  end
end

Asciidoctor::Extensions.register do
  include_processor ReferenceIncludes
end

def line_of(node)
  location = node.source_location
  location.lineno if location && location.file == $main_file && location.lineno.positive?
end

def titled(node, out)
  out << { 't' => 'p', 'html' => node.title, 'line' => line_of(node), 'title' => true } if node.title?
end

def walk(node, out, depth = 0)
  node.blocks.each { |block| emit(block, out, depth) }
end

def emit(block, out, depth)
  case block.context
  when :section
    out << { 't' => 'h', 'level' => block.level + 1, 'html' => block.title, 'line' => line_of(block) }
    walk(block, out)
  when :floating_title
    out << { 't' => 'h', 'level' => block.level + 1, 'html' => block.title, 'line' => line_of(block) }
  when :paragraph
    out << { 't' => 'p', 'html' => block.content, 'line' => line_of(block) }
  when :ulist, :olist, :colist
    titled(block, out)
    block.items.each_with_index do |item, index|
      marker = block.context == :ulist ? '-' : "#{index + 1}."
      out << { 't' => 'li', 'html' => item.text, 'depth' => depth, 'marker' => marker,
               'line' => line_of(item) }
      walk(item, out, depth + 1)
    end
  when :dlist
    titled(block, out)
    block.items.each do |terms, description|
      words = terms.map(&:text).join(', ')
      text = description&.text? ? "#{words}: #{description.text}" : words
      out << { 't' => 'li', 'html' => text, 'depth' => depth, 'marker' => '-',
               'line' => line_of(terms.first) }
      walk(description, out, depth + 1) if description
    end
  when :listing, :literal
    titled(block, out)
    out << { 't' => 'code', 'lang' => block.attr('language') || '', 'text' => block.source,
             'line' => line_of(block), 'lines' => block.lines.size }
  when :table
    titled(block, out)
    rows = block.rows
    to_text = ->(row) { row.map { |cell| cell.text } }
    out << { 't' => 'table', 'head' => rows.head.map(&to_text), 'body' => rows.body.map(&to_text),
             'foot' => rows.foot.map(&to_text), 'line' => line_of(block) }
  when :admonition
    inner = []
    if block.content_model == :simple
      inner << { 't' => 'p', 'html' => block.content, 'line' => line_of(block) }
    else
      walk(block, inner, depth)
    end
    out << { 't' => 'adm', 'kind' => block.attr('name').to_s, 'html' => block.title? ? block.title : '',
             'blocks' => inner, 'line' => line_of(block) }
  when :quote, :verse
    titled(block, out)
    if block.content_model == :simple
      out << { 't' => 'p', 'html' => block.content, 'line' => line_of(block) }
    else
      walk(block, out, depth)
    end
  when :example, :sidebar, :open, :preamble
    titled(block, out)
    walk(block, out, depth)
  end
end

def read(path)
  logger = Asciidoctor::MemoryLogger.new
  Asciidoctor::LoggerManager.logger = logger
  $main_file = File.expand_path(path)
  doc = Asciidoctor.load_file(path, safe: :safe, sourcemap: true, parse: true,
                                    attributes: { 'attribute-missing' => 'skip' })
  blocks = []
  if doc.header? && doc.doctitle
    blocks << { 't' => 'h', 'level' => 1, 'html' => doc.doctitle, 'line' => line_of(doc.header) || 1 }
  end
  walk(doc, blocks)
  attributes = {}
  %w[author email revdate revnumber revremark keywords description].each do |name|
    value = doc.attributes[name]
    attributes[name] = value.to_s if value && !value.to_s.empty?
  end
  # An author line's link (`Dan Allen <https://github.com/mojavelinux[@mojavelinux]>`) is
  # read into `email` by Asciidoctor: not an address.
  attributes.delete('email') if attributes['email']&.include?('://')
  authors = doc.authors.map(&:name).compact
  attributes['authors'] = authors if authors.size > 1
  warnings = logger.messages.map do |message|
    text = message[:message]
    next text.to_s unless text.is_a?(Hash)
    location = text[:source_location]
    location ? "line #{location.lineno}: #{text[:text]}" : text[:text].to_s
  end
  # A callout list whose code is an include (read as a reference) has no callouts to match.
  warnings = warnings.uniq.reject { |warning| warning.include?('no callout found') }
  { 'blocks' => blocks, 'metadata' => attributes, 'warnings' => warnings.first(5) }
end

$stdout.sync = true
$stdin.each_line do |request|
  answer = begin
    read(JSON.parse(request)['path'])
  rescue StandardError, SystemStackError => e
    { 'error' => "#{e.class}: #{e.message.lines.first.to_s.strip[0, 120]}" }
  end
  $stdout.puts(JSON.generate(answer))
end
