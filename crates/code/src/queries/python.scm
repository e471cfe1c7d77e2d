; Definitions in Python sources.
(function_definition name: (identifier) @name) @definition.function
(decorated_definition definition: (function_definition name: (identifier) @name)) @definition.function
(class_definition body: (block (function_definition name: (identifier) @name) @definition.method))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @name)) @definition.method))
(class_definition name: (identifier) @name) @definition.type
(decorated_definition definition: (class_definition name: (identifier) @name)) @definition.type
; Class attributes (dataclass and model fields, enum members).
(class_definition body: (block (expression_statement (assignment left: (identifier) @name)) @definition.field))
; Members of an enum: class attributes of a class deriving from the standard enum
; bases (a member outranks the field pattern above for the same name).
(class_definition
  superclasses: (argument_list [(identifier) (attribute)] @_base)
  body: (block (expression_statement (assignment left: (identifier) @name)) @definition.member)
  (#match? @_base "(^|[.])(Enum|IntEnum|StrEnum|Flag|IntFlag)$"))
; Attributes an initialiser sets on the instance.
((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)) @definition.field
  (#eq? @_self "self"))
; Module-level constants.
((module (expression_statement (assignment left: (identifier) @name)) @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
