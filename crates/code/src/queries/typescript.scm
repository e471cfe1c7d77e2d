; Definitions in TypeScript and TSX sources.
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
(method_definition name: (property_identifier) @name) @definition.method
(method_signature name: (property_identifier) @name) @definition.method
(class_declaration name: (type_identifier) @name) @definition.type
(abstract_class_declaration name: (type_identifier) @name) @definition.type
(interface_declaration name: (type_identifier) @name) @definition.type
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.type
(enum_body name: (property_identifier) @name @definition.member)
(enum_assignment name: (property_identifier) @name) @definition.member
(public_field_definition name: (property_identifier) @name) @definition.field
(property_signature name: (property_identifier) @name) @definition.field
(program (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name))) @definition.constant)
